/*
 * The double's exec subresource spoken to with a plain WebSocket client, byte by byte as the
 * channel protocols say: stdout and stderr on their channels, stdin ended with v5's CLOSE, the exit
 * Status on channel 3 (v4/v5) or the bare error text (channel.k8s.io), and the API server's refusals
 * before the upgrade.
 */
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { useDouble, uniqueName, waitForPod, containerStatus } from './client-helpers.js';

const TOKEN = 'svc-exec-token';
const env = useDouble({ token: TOKEN });

/** A running pod with two busybox containers; its name. */
async function runningPod(): Promise<string> {
  const { core } = env.client;
  const name = uniqueName('exec');
  const container = (n: string) => ({
    name: n,
    image: 'local/busybox:latest',
    imagePullPolicy: 'Never',
    command: ['sleep', '3600'],
  });
  await core.createNamespacedPod({
    namespace: 'default',
    body: {
      metadata: { name },
      spec: { restartPolicy: 'Never', containers: [container('main'), container('other')] },
    },
  });
  await waitForPod(core, 'default', name, (pod) =>
    ['main', 'other'].every((c) => containerStatus(pod, c)?.state?.running !== undefined),
  );
  return name;
}

interface Session {
  protocol: string;
  messages: Buffer[];
  closed: Promise<void>;
  socket: WebSocket;
}

/** Opens an exec session; `query` as the URL's search. */
function open(pod: string, query: string, protocols: string[], token = TOKEN): Promise<Session> {
  const url = `${env.double.url.replace('http:', 'ws:')}/api/v1/namespaces/default/pods/${pod}/exec?${query}`;
  const socket = new WebSocket(url, protocols, { headers: { Authorization: `Bearer ${token}` } });
  const messages: Buffer[] = [];
  socket.on('message', (data: Buffer) => messages.push(data));
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve({ protocol: socket.protocol, messages, closed, socket }));
    socket.once('unexpected-response', (_request, response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        reject(new Error(`${response.statusCode} ${Buffer.concat(chunks).toString('utf8')}`)),
      );
    });
    socket.once('error', reject);
  });
}

const on = (session: Session, channel: number) =>
  Buffer.concat(session.messages.filter((m) => m[0] === channel).map((m) => m.subarray(1))).toString();

const command = (...words: string[]) => words.map((w) => `command=${encodeURIComponent(w)}`).join('&');

describe('exec on the Kubernetes double', () => {
  it('runs a command with v5: stdin ended by CLOSE, output on its channels, the exit Status last', async () => {
    const pod = await runningPod();
    const session = await open(
      pod,
      `container=main&${command('sh', '-c', 'cat; echo oops >&2; exit 3')}&stdin=true&stdout=true&stderr=true`,
      ['v5.channel.k8s.io', 'v4.channel.k8s.io'],
    );
    expect(session.protocol).toBe('v5.channel.k8s.io');
    session.socket.send(Buffer.concat([Buffer.of(0), Buffer.from('hello ')]));
    session.socket.send(Buffer.concat([Buffer.of(0), Buffer.from('world')]));
    session.socket.send(Buffer.of(255, 0));
    await session.closed;
    expect(on(session, 1)).toBe('hello world');
    expect(on(session, 2)).toBe('oops\n');
    expect(session.messages.at(-1)?.[0]).toBe(3);
    expect(JSON.parse(on(session, 3))).toEqual({
      metadata: {},
      status: 'Failure',
      message:
        'command terminated with non-zero exit code: error executing command [sh -c cat; echo oops >&2; exit 3], exit code 3',
      reason: 'NonZeroExitCode',
      details: { causes: [{ reason: 'ExitCode', message: '3' }] },
    });
  }, 60_000);

  it('answers v4 with a Success Status, and channel.k8s.io (or no protocol) with nothing on success', async () => {
    const pod = await runningPod();
    const v4 = await open(pod, `container=other&${command('echo', 'hi')}&stdout=true`, ['v4.channel.k8s.io']);
    await v4.closed;
    expect(v4.protocol).toBe('v4.channel.k8s.io');
    expect(on(v4, 1)).toBe('hi\n');
    expect(JSON.parse(on(v4, 3))).toEqual({ metadata: {}, status: 'Success' });
    const bare = await open(pod, `container=main&${command('sh', '-c', 'exit 2')}&stdout=true`, []);
    await bare.closed;
    expect(bare.protocol).toBe('');
    expect(on(bare, 3)).toMatch(/exit code 2$/);
    const ok = await open(pod, `container=main&${command('true')}&stdout=true`, []);
    await ok.closed;
    expect(ok.messages).toEqual([]);
  }, 60_000);

  it('refuses before the upgrade as the API server does', async () => {
    const pod = await runningPod();
    const v5 = ['v5.channel.k8s.io'];
    await expect(open(pod, `${command('true')}&stdout=true`, v5)).rejects.toThrow(
      /^400 .*a container name must be specified for pod exec-\w+, choose one of: \[main other\]/,
    );
    await expect(open(pod, `container=nope&${command('true')}&stdout=true`, v5)).rejects.toThrow(
      /^400 .*"container nope is not valid for pod exec-\w+"/,
    );
    await expect(open(pod, 'container=main&stdout=true', v5)).rejects.toThrow(
      /^400 .*you must specify at least 1 command/,
    );
    await expect(open(pod, `container=main&${command('true')}`, v5)).rejects.toThrow(
      /^400 .*you must specify at least 1 of stdin, stdout, stderr/,
    );
    await expect(open('missing', `container=main&${command('true')}&stdout=true`, v5)).rejects.toThrow(
      /^404 .*pods \\"missing\\" not found|^404 .*pods "missing" not found/,
    );
    await expect(open(pod, `container=main&${command('true')}&stdout=true`, v5, 'wrong')).rejects.toThrow(
      /^401 /,
    );
    await expect(
      open(pod, `container=main&${command('true')}&stdout=true`, ['base64.binary.k8s.io']),
    ).rejects.toThrow(/^403 requested protocol\(s\) are not supported: \[base64.binary.k8s.io\]/);
    // Without an upgrade, the path is the API server's 400.
    const plain = await fetch(`${env.double.url}/api/v1/namespaces/default/pods/${pod}/exec`, {
      headers: { Authorization: `Bearer ${TOKEN}` },
    });
    expect(plain.status).toBe(400);
    expect(((await plain.json()) as { message: string }).message).toBe('Upgrade request required');
  }, 60_000);
});
