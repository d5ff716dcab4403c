/**
 * Security audit of secrets (issue 15), on real processes: a build whose step prints a repository
 * secret whole and in two pieces written a second apart (two output chunks), with finished logs
 * in object storage (s3rver), global webhooks, and event and log streams open. The secret's value
 * must appear nowhere a user or an observer can read it: the live log, the stored log (API and the
 * object store's files), API answers, build events, webhook deliveries, metrics, and the server's
 * and runner's own logs.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerForTests } from '../../src/engines/docker/testing.case.js';
import { MASK } from '../../src/runner/masker.js';
import { call } from '../api/client.js';
import { HostE2E } from '../e2e/host-e2e.js';
import { startRunner, type SvcProcess } from '../e2e/system.js';
import { startS3, type TestS3 } from '../support/s3.js';

const docker = await dockerForTests(['local/busybox']);
const SECRET = `s3cr3t-${randomBytes(12).toString('hex')}`;
const REPO = 'octocat/app';

const PIPELINE = `kind: pipeline
type: docker
name: default
clone:
  disable: true
steps:
- name: leak
  image: local/busybox
  pull: if-not-exists
  environment:
    API_KEY:
      from_secret: api_key
  commands:
  - sleep 3
  - echo "whole $API_KEY"
  - printf '%s' "pieces $(echo "$API_KEY" | cut -c1-10)"; sleep 1; echo "$API_KEY" | cut -c11-
  - echo done-marker
`;

/** Every file under `dir`, recursively. */
function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

/** Collects everything a streaming GET sends until `abort`. */
function collect(
  url: string,
  token: string,
  abort: AbortSignal,
): { text: () => string; done: Promise<void> } {
  let text = '';
  const done = (async () => {
    try {
      const response = await fetch(url, { headers: { authorization: `Bearer ${token}` }, signal: abort });
      const decoder = new TextDecoder();
      for await (const chunk of response.body ?? [])
        text += decoder.decode(chunk as Uint8Array, { stream: true });
    } catch {
      // Aborted at the end of the test: what arrived is what counts.
    }
  })();
  return { text: () => text, done };
}

describe.skipIf(docker.skip)('secrets never leave where they belong', () => {
  let s3: TestS3;
  let e2e: HostE2E;
  let runner: SvcProcess;
  let hooks: Server;
  const deliveries: string[] = [];

  beforeAll(async () => {
    s3 = await startS3(['logs']);
    hooks = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        deliveries.push(body);
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => hooks.listen(0, '127.0.0.1', resolve));
    const hookPort = (hooks.address() as AddressInfo).port;
    e2e = await HostE2E.start(
      'octocat',
      { api_key: SECRET },
      {
        repository: {
          url: 'https://git.invalid/octocat/app.git',
          commit: () => randomBytes(20).toString('hex'),
        },
        server: () => ({
          SVC_OBJSTORE_BUCKET: 'logs',
          SVC_OBJSTORE_ENDPOINT: s3.endpoint,
          SVC_OBJSTORE_PATH_STYLE: 'true',
          AWS_ACCESS_KEY_ID: 'S3RVER',
          AWS_SECRET_ACCESS_KEY: 'S3RVER',
          AWS_REGION: 'us-east-1',
          SVC_WEBHOOK_ENDPOINT: `http://127.0.0.1:${hookPort}/events`,
          SVC_WEBHOOK_SECRET: 'audit-webhook-secret',
          SVC_METRICS_ANONYMOUS_ACCESS: 'true',
        }),
      },
    );
    runner = startRunner(e2e.port, 'audit', [], { SVC_DEBUG: 'true' });
  }, 120_000);

  afterAll(async () => {
    await runner?.stop();
    await e2e?.stop();
    await new Promise((resolve) => hooks?.close(resolve));
    await s3?.close();
  });

  it('masks it in every log path and shows it in no answer, event, webhook, metric or process log', async () => {
    const abort = new AbortController();
    const events = collect(e2e.url('/api/stream'), e2e.token, abort.signal);
    await e2e.push({ '.drone.yml': PIPELINE }, 'print the secret');
    const running = await e2e.build(
      1,
      (b) => b.stages?.[0]?.steps?.some((s) => s.status === 'running') === true,
    );
    // Joins while the step sleeps: the lines come live.
    const live = await e2e.follow(running, 'leak', 'done-marker');
    const done = await e2e.build(1);
    expect(done.status).toBe('success');
    const stored = await e2e.log(done, 'leak');
    abort.abort();
    await events.done;

    // Masked whole, and when it arrives in two pieces a second apart.
    for (const lines of [live, stored]) {
      expect(lines.join('\n')).not.toContain(SECRET);
      expect(lines.some((line) => line.includes(`whole ${MASK}`))).toBe(true);
      expect(lines.some((line) => line.includes(`pieces ${MASK}`))).toBe(true);
    }
    // The finished log went to the object store: its files hold it masked.
    const objects = files(s3.directory).map((path) => readFileSync(path));
    expect(objects.some((data) => data.includes(`whole ${MASK}`))).toBe(true);
    expect(objects.filter((data) => data.includes(SECRET))).toEqual([]);

    const answers: string[] = [events.text()];
    for (const path of [
      `/api/repos/${REPO}`,
      `/api/repos/${REPO}/secrets`,
      `/api/repos/${REPO}/secrets/api_key`,
      `/api/repos/${REPO}/builds`,
      `/api/repos/${REPO}/builds/1`,
      `/api/user`,
      `/api/user/repos?latest=true`,
    ]) {
      const answer = await call({ url: e2e.url() }, path, { token: e2e.token });
      expect(answer.status, path).toBe(200);
      answers.push(answer.text);
    }
    const metrics = await fetch(e2e.url('/metrics'));
    expect(metrics.status).toBe(200);
    answers.push(await metrics.text());
    expect(deliveries.length).toBeGreaterThan(0);
    answers.push(...deliveries);
    answers.push(e2e.server.log(), runner.log());
    expect(answers.filter((text) => text.includes(SECRET))).toEqual([]);
    // The audit read real things: the event stream saw the build, the webhooks its success.
    expect(events.text()).toContain('"status":"success"');
    expect(deliveries.some((d) => d.includes('"status":"success"'))).toBe(true);
  }, 150_000);
});
