import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Readable, type Duplex } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { Demuxer } from '../demux.js';
import { dockerForTests } from '../testing.case.js';
import { pullQuery, registryAuth } from './client.js';
import { DockerApiError } from './errors.js';
import { jsonLines } from './json-lines.js';
import { startRegistry } from './registry.case.js';
import type { PullEvent } from './types.js';

const { docker, skip } = await dockerForTests(['local/busybox']);
const label = `svc-test-client-${randomUUID().slice(0, 8)}`;
const labels = { 'io.svc.owner': label };

/** Reads a multiplexed stream to its end, per stream. */
async function readAll(stream: Duplex): Promise<{ stdout: string; stderr: string }> {
  const text = { stdout: '', stderr: '', stdin: '' };
  const demuxer = new Demuxer((kind, payload) => (text[kind] += payload.toString()));
  for await (const chunk of stream) demuxer.write(chunk as Buffer);
  return { stdout: text.stdout, stderr: text.stderr };
}

describe('pullQuery and registryAuth', () => {
  it('pulls latest for a name without tag, and keeps a tag, a registry port or a digest', () => {
    expect(pullQuery('busybox')).toEqual({ fromImage: 'busybox', tag: 'latest' });
    expect(pullQuery('registry.test:5000/team/app')).toEqual({
      fromImage: 'registry.test:5000/team/app',
      tag: 'latest',
    });
    expect(pullQuery('registry.test:5000/app:v2')).toEqual({
      fromImage: 'registry.test:5000/app',
      tag: 'v2',
    });
    expect(pullQuery('busybox@sha256:0123')).toEqual({ fromImage: 'busybox', tag: 'sha256:0123' });
  });

  it('encodes credentials as padded URL-safe base64 JSON', () => {
    const auth = { username: 'octo?>', password: 'p~ss', serveraddress: 'registry.test' };
    const header = registryAuth(auth);
    expect(header).toMatch(/^[A-Za-z0-9_=-]+$/);
    expect(header.length % 4).toBe(0);
    expect(JSON.parse(Buffer.from(header, 'base64url').toString())).toEqual(auth);
  });
});

describe('jsonLines', () => {
  it('parses objects cut anywhere by chunks', async () => {
    const text = '{"status":"Pulling fs layer","id":"a"}\r\n{"status":"Done"}\r\n';
    const chunks = [text.slice(0, 7), text.slice(7, 45), text.slice(45)];
    const events: unknown[] = [];
    for await (const event of jsonLines(Readable.from(chunks.map((c) => Buffer.from(c))))) {
      events.push(event);
    }
    expect(events).toEqual([{ status: 'Pulling fs layer', id: 'a' }, { status: 'Done' }]);
  });
});

describe.skipIf(skip)('DockerClient (real Docker engine)', () => {
  afterAll(async () => {
    for (const c of (await docker?.listContainers({ label: [`io.svc.owner=${label}`] })) ?? []) {
      await docker?.removeContainer(c.Id, { force: true });
    }
  });

  it('speaks API 1.41 to the Docker 20.10 engine, as its GET /version allows', async () => {
    const engine = await docker!.version();
    expect(engine.ApiVersion).toBe('1.41');
    expect(await docker!.apiVersion()).toBe('1.41');
  });

  it("answers an error with the HTTP status and Docker's message", async () => {
    const error = await docker!.inspectContainer('svc-no-such-container').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DockerApiError);
    expect(error).toMatchObject({
      statusCode: 404,
      code: 'NOT_FOUND',
      message: 'No such container: svc-no-such-container',
    });
  });

  it('delivers stdout and stderr on an attach made before start, from the first byte', async () => {
    const { Id: id } = await docker!.createContainer({
      Image: 'local/busybox',
      Cmd: ['sh', '-c', 'echo out; echo err >&2; echo more'],
      Labels: labels,
      AttachStdout: true,
      AttachStderr: true,
    });
    const stream = await docker!.attachContainer(id);
    await docker!.startContainer(id);
    const [output, exit] = await Promise.all([readAll(stream), docker!.waitContainer(id)]);
    expect(output).toEqual({ stdout: 'out\nmore\n', stderr: 'err\n' });
    expect(exit.StatusCode).toBe(0);
    expect((await docker!.inspectContainer(id)).State).toMatchObject({ Running: false, ExitCode: 0 });
    await docker!.removeContainer(id, { force: true });
  });

  it('stops waiting when the signal aborts, and refuses an aborted call', async () => {
    const { Id: id } = await docker!.createContainer({
      Image: 'local/busybox',
      Cmd: ['sleep', '300'],
      Labels: labels,
    });
    await docker!.startContainer(id);
    const controller = new AbortController();
    const waiting = docker!.waitContainer(id, controller.signal);
    setTimeout(() => controller.abort(), 100);
    await expect(waiting).rejects.toMatchObject({ name: 'AbortError' });
    await expect(docker!.attachContainer(id, AbortSignal.abort())).rejects.toMatchObject({
      name: 'AbortError',
    });
    // The engine is still usable after the aborted calls.
    expect((await docker!.inspectContainer(id)).State.Running).toBe(true);
    await docker!.removeContainer(id, { force: true });
  });

  it('reports a failed pull with the reason Docker gives', async () => {
    // No registry is reachable here: Docker answers the pull with an error.
    const pull = async () => {
      for await (const _event of docker!.pullImage('registry.invalid/svc/none:1')) {
        // progress, if any, is not what this test is about
      }
    };
    await expect(pull()).rejects.toThrow(/registry\.invalid/);
  });

  it('pulls with registry credentials, streaming the progress; refuses a pull without them', async () => {
    const registry = await startRegistry('octo', 'p4ss/word+');
    try {
      const auth = { username: 'octo', password: 'p4ss/word+', serveraddress: registry.address };
      const events: PullEvent[] = [];
      for await (const event of docker!.pullImage(registry.image, { auth })) events.push(event);
      const statuses = events.map((e) => e.status);
      expect(statuses).toContain('Pull complete');
      expect(statuses.at(-1)).toBe(`Status: Downloaded newer image for ${registry.image}`);
      expect(await docker!.inspectImage(registry.image)).toHaveProperty('Id');

      const anonymous = async () => {
        for await (const _event of docker!.pullImage(`${registry.address}/svc/hello:1`)) {
          // already present, but the manifest is still asked for
        }
      };
      await expect(anonymous()).rejects.toThrow(/no basic auth credentials|unauthorized/);
    } finally {
      execFileSync('docker', ['rmi', '-f', registry.image], { stdio: 'ignore' });
      await registry.close();
    }
  });
});
