/*
 * PodExec (exec over a WebSocket) against the Kubernetes double, whose exec runs on the real Docker
 * engine: exit codes and stderr, an input streamed to its end (v5 CLOSE), output paced by a slow
 * reader, an abort, the API server's refusals, and an API server without v5.
 */
import { createHash, randomBytes } from 'node:crypto';
import { Readable, Writable } from 'node:stream';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  clientFor,
  containerStatus,
  uniqueName,
  waitForPod,
} from '../../../test/doubles/kubernetes/client-helpers.js';
import { startKubernetesDouble } from '../../../test/doubles/kubernetes/index.js';
import { dockerForTests } from '../docker/testing.case.js';
import { KubeApiError } from './api.js';
import { PodExec } from './exec.js';

const { skip } = await dockerForTests(['local/busybox']);

/** A double with one running busybox pod; PodExec on its kubeconfig. */
async function cluster(options: { execV5?: boolean } = {}) {
  const double = await startKubernetesDouble({ token: 'svc-exec', ...options });
  const { core } = clientFor(double.kubeconfig);
  const pod = uniqueName('exec');
  await core.createNamespacedPod({
    namespace: 'default',
    body: {
      metadata: { name: pod },
      spec: {
        restartPolicy: 'Never',
        containers: [
          {
            name: 'main',
            image: 'local/busybox:latest',
            imagePullPolicy: 'Never',
            command: ['sleep', '3600'],
          },
        ],
      },
    },
  });
  await waitForPod(core, 'default', pod, (p) => containerStatus(p, 'main')?.state?.running !== undefined);
  const config = new KubeConfig();
  config.loadFromString(double.kubeconfig);
  return { double, exec: new PodExec(config), where: { namespace: 'default', pod, container: 'main' } };
}

/** A Writable that keeps what it gets as text. */
function text(): Writable & { text: () => string } {
  const chunks: Buffer[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk);
      done();
    },
  });
  return Object.assign(sink, { text: () => Buffer.concat(chunks).toString('utf8') });
}

describe.skipIf(skip)('PodExec', () => {
  let env: Awaited<ReturnType<typeof cluster>>;
  beforeAll(async () => {
    env = await cluster();
  });
  afterAll(async () => {
    expect(env.double.internalErrors()).toEqual([]);
    await env.double.close();
  });

  it('gives the exit code, the output and the start of stderr', async () => {
    const stdout = text();
    const exit = await env.exec.run({
      ...env.where,
      command: ['sh', '-c', 'echo out; echo err >&2; exit 7'],
      stdout,
    });
    expect(exit).toEqual({ exitCode: 7, stderr: 'err' });
    expect(stdout.text()).toBe('out\n');
    expect(await env.exec.run({ ...env.where, command: ['true'] })).toEqual({ exitCode: 0, stderr: '' });
  }, 30_000);

  it('streams an input to its end: the command sees end of file (v5 CLOSE)', async () => {
    const chunks = Array.from({ length: 24 }, () => randomBytes(1024 * 1024));
    const digest = createHash('md5');
    for (const chunk of chunks) digest.update(chunk);
    const stdout = text();
    const exit = await env.exec.run({
      ...env.where,
      command: ['md5sum'],
      stdin: Readable.from(chunks),
      stdout,
    });
    expect(exit.exitCode).toBe(0);
    expect(stdout.text()).toBe(`${digest.digest('hex')}  -\n`);
  }, 60_000);

  it('tells the exit status and stderr of a command that ends before its input does', async () => {
    const input = Readable.from(Array.from({ length: 64 }, () => Buffer.alloc(1024 * 1024)));
    const exit = await env.exec.run({
      ...env.where,
      command: ['sh', '-c', 'head -c 10 >/dev/null; echo "tar: cannot write" >&2; exit 2'],
      stdin: input,
    });
    expect(exit).toEqual({ exitCode: 2, stderr: 'tar: cannot write' });
    // What the command did not read was not read from the input either.
    expect(input.destroyed).toBe(true);
  }, 60_000);

  it('reads no more of the output than a slow reader takes', async () => {
    let received = 0;
    let release: (() => void) | undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const slow = new Writable({
      highWaterMark: 64 * 1024,
      write(chunk: Buffer, _encoding, done) {
        received += chunk.length;
        held.then(() => done(), done);
      },
    });
    const running = env.exec.run({
      ...env.where,
      command: ['head', '-c', '64000000', '/dev/zero'],
      stdout: slow,
    });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    // One message was written before the reader was full; the rest waits in Docker and the socket.
    expect(received).toBeLessThan(2 * 1024 * 1024);
    release?.();
    expect((await running).exitCode).toBe(0);
    expect(received).toBe(64_000_000);
  }, 60_000);

  it('stops a command when aborted', async () => {
    const started = Date.now();
    const run = env.exec.run({ ...env.where, command: ['sleep', '30'], signal: AbortSignal.timeout(300) });
    await expect(run).rejects.toMatchObject({ name: 'AbortError' });
    expect(Date.now() - started).toBeLessThan(5000);
  }, 30_000);

  it('rejects with the API server’s Status for an unknown container or pod', async () => {
    const unknown = env.exec.run({ ...env.where, container: 'nope', command: ['true'] });
    await expect(unknown).rejects.toBeInstanceOf(KubeApiError);
    await expect(unknown).rejects.toThrow(
      `exec in ${env.where.pod}/nope: Kubernetes answered 400: container nope is not valid for pod ${env.where.pod}`,
    );
    await expect(env.exec.run({ ...env.where, pod: 'gone', command: ['true'] })).rejects.toMatchObject({
      status: 404,
      reason: 'NotFound',
    });
  }, 30_000);
});

describe.skipIf(skip)('PodExec on an API server without v5.channel.k8s.io', () => {
  it('runs commands without input over v4, and refuses to send one it could not end', async () => {
    const env = await cluster({ execV5: false });
    try {
      const stdout = text();
      expect(await env.exec.run({ ...env.where, command: ['echo', 'v4'], stdout })).toEqual({
        exitCode: 0,
        stderr: '',
      });
      expect(stdout.text()).toBe('v4\n');
      await expect(
        env.exec.run({ ...env.where, command: ['cat'], stdin: Readable.from([Buffer.from('x')]) }),
      ).rejects.toThrow(
        `exec in ${env.where.pod}/main: the API server offers v4.channel.k8s.io, not v5.channel.k8s.io, which is needed to end a command's input (Kubernetes 1.30 or later)`,
      );
      expect(env.double.internalErrors()).toEqual([]);
    } finally {
      await env.double.close();
    }
  }, 60_000);
});
