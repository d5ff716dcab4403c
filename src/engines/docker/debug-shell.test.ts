// Settings: SVC_SHELLSHARE_ENABLED, SVC_SHELLSHARE_HOST, SVC_SHELLSHARE_PORT, SVC_SHELLSHARE_FINGERPRINT_RSA and
// SVC_SHELLSHARE_FINGERPRINT_ED25519, as the Docker runner passes them on (ShellShare).
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileYaml, pipelineOf, testInput } from '../../../test/fixtures/pipelines/compile-input.js';
import { DEFAULT_RUNNER_SETTINGS } from '../../pipeline/index.js';
import type { ShellShare } from '../../pipeline/compile/debug-shell.js';
import { StageExecutor } from '../../runner/executor.js';
import { MemoryReporter } from '../../runner/memory-reporter.js';
import { DockerEngine } from './engine.js';
import { dockerForTests } from './testing.case.js';
import { tmateVolume } from './tmate-volume.js';

const { docker, skip } = await dockerForTests(['local/busybox', 'svc/git']);

/** A TCP listener standing in for a tmate relay: it records what each connection sends first. */
class FakeRelay {
  readonly greetings: string[] = [];
  readonly #sockets = new Set<Socket>();
  readonly #server: Server = createServer((socket) => {
    this.#sockets.add(socket);
    socket.once('data', (chunk: Buffer) => this.greetings.push(chunk.toString('latin1')));
    socket.on('error', () => undefined);
  });

  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    const address = this.#server.address();
    return typeof address === 'object' && address !== null ? address.port : 0;
  }

  close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
}

// The step shares the host's network (a trusted setting), so that the relay can be on loopback.
const PIPELINE = `
kind: pipeline
type: docker
name: debug
clone:
  disable: true
steps:
- name: build
  image: local/busybox
  network_mode: host
  commands:
  - echo building
  - exit 3
`;

describe.skipIf(skip)(
  'debug builds with SVC_SHELLSHARE_*: tmate in the failed step, on the real engine',
  () => {
    const relay = new FakeRelay();
    let share: ShellShare;
    beforeAll(async () => {
      if (docker === undefined) return;
      const port = await relay.listen();
      share = {
        host: '127.0.0.1',
        port,
        fingerprintRsa: 'SHA256:rsaFingerprintOfTheRelay',
        fingerprintEd25519: 'SHA256:ed25519FingerprintOfTheRelay',
        volume: await tmateVolume(docker, 'svc/git'),
      };
    });
    afterAll(() => relay.close());

    async function run(debug: boolean, until: (reporter: MemoryReporter) => boolean) {
      const base = testInput(pipelineOf(PIPELINE));
      const { spec } = await compileYaml(PIPELINE, {
        runId: `debug-shell-${debug}-${process.pid}`,
        trusted: true,
        build: { ...base.build, debug },
        runner: { ...DEFAULT_RUNNER_SETTINGS, shellShare: share },
      });
      const engine = new DockerEngine({ docker: docker!, owner: 'debug-shell-test' });
      const reporter = new MemoryReporter();
      const cancel = new AbortController();
      const started = Date.now();
      const execution = new StageExecutor({ engine, maxProcs: 0 }).execute(spec, {
        reporter,
        signal: cancel.signal,
        timeout: 60_000,
      });
      for (let i = 0; i < 300 && !until(reporter); i++) await new Promise((r) => setTimeout(r, 100));
      const waited = Date.now() - started;
      cancel.abort();
      return { result: await execution, reporter, waited };
    }

    it('keeps the failed step running tmate against the configured relay, its output in the log', async () => {
      const { result, reporter } = await run(true, () => relay.greetings.length > 0);
      // tmate opened an SSH session to the relay's host and port: the client's identification line.
      expect(relay.greetings[0]).toMatch(/^SSH-2\.0-libssh/);
      const log = reporter.lines('build').join('\n');
      expect(log).toContain('building');
      expect(log).toContain('+ exit code 3: this is a debug build, so a tmate session starts');
      expect(log).toContain('Connecting to 127.0.0.1');
      // The stage waited in the session until it was cancelled.
      expect(result.steps.find((s) => s.name === 'build')?.status).not.toBe('success');
    }, 60_000);

    it('leaves a step of a build without debug to fail at once', async () => {
      const before = relay.greetings.length;
      const { result, reporter } = await run(false, (r) => r.events.some((e) => e.type === 'finished'));
      expect(result.steps.find((s) => s.name === 'build')?.status).toBe('failure');
      expect(result.steps.find((s) => s.name === 'build')?.exitCode).toBe(3);
      expect(reporter.lines('build').join('\n')).not.toContain('tmate');
      expect(relay.greetings.length).toBe(before);
    }, 60_000);
  },
);
