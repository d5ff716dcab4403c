// Settings: SVC_SHELLSHARE_ENABLED, SVC_SHELLSHARE_HOST, SVC_SHELLSHARE_PORT, SVC_SHELLSHARE_FINGERPRINT_RSA and
// SVC_SHELLSHARE_FINGERPRINT_ED25519, as the Docker runner passes them on (ShellShare).
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  compileYaml,
  pipelineOf,
  stepOf,
  testInput,
} from '../../../test/fixtures/pipelines/compile-input.js';
import { DEFAULT_RUNNER_SETTINGS } from './input.js';
import { posixScript } from './script.js';
import { DEBUG_SHELL_MARK } from '../../core/log.js';
import { debugShellScript, TMATE_DIR, type ShellShare } from './debug-shell.js';

const YAML = `
kind: pipeline
services:
- name: db
  image: postgres
  commands: [postgres]
steps:
- name: test
  image: alpine
  commands: [make test]
- name: publish
  image: plugins/docker
`;

const SHARE: ShellShare = {
  host: 'relay.example.com',
  port: 2222,
  fingerprintRsa: 'SHA256:rsa+/=',
  fingerprintEd25519: 'SHA256:ed25519',
  volume: 'svc-tmate-0123456789ab',
};

async function compiled(debug: boolean, share: ShellShare | null = SHARE) {
  const build = { ...testInput(pipelineOf(YAML)).build, debug };
  return (
    await compileYaml(YAML, { build, runner: { ...DEFAULT_RUNNER_SETTINGS, shellShare: share ?? undefined } })
  ).spec;
}

describe('compilePipeline: tmate in debug builds (SVC_SHELLSHARE_*)', () => {
  it('runs the commands of a debug build with a tmate session on failure, configured for the relay', async () => {
    const spec = await compiled(true);
    const script = stepOf(spec, 'test').command[0] ?? '';
    expect(script).toContain('trap svc_debug_shell EXIT');
    expect(script).toContain(
      [
        'set -g tmate-server-host "relay.example.com"',
        'set -g tmate-server-port 2222',
        'set -g tmate-server-rsa-fingerprint "SHA256:rsa+/="',
        'set -g tmate-server-ed25519-fingerprint "SHA256:ed25519"',
      ].join('\n'),
    );
    expect(script).toContain('/usr/drone/tmate/tmate -f "$svc_tmate_conf" -F');
    expect(script.endsWith(posixScript(['make test']))).toBe(true);
    expect(stepOf(spec, 'test').mounts).toContainEqual({
      name: 'svc-debug-shell',
      path: '/usr/drone/tmate',
      readOnly: true,
    });
    expect(spec.volumes).toContainEqual({ kind: 'host', name: 'svc-debug-shell', path: SHARE.volume });
  });

  it('leaves services, plugins and the clone step alone', async () => {
    const spec = await compiled(true);
    for (const name of ['db', 'publish', 'clone']) {
      expect(stepOf(spec, name).command.join('\n')).not.toContain('tmate');
      expect(stepOf(spec, name).mounts.map((m) => m.path)).not.toContain('/usr/drone/tmate');
    }
  });

  it("uses tmate's own servers when no relay host is set", async () => {
    const spec = await compiled(true, {
      ...SHARE,
      host: '',
      port: null,
      fingerprintRsa: '',
      fingerprintEd25519: '',
    });
    const script = stepOf(spec, 'test').command[0] ?? '';
    expect(script).toContain('tmate -f "$svc_tmate_conf" -F');
    expect(script).not.toContain('set -g');
  });

  it('changes nothing in a build without debug, or on a runner without SHELLSHARE', async () => {
    for (const spec of [await compiled(false), await compiled(true, null)]) {
      expect(stepOf(spec, 'test').command).toEqual([posixScript(['make test'])]);
      expect(spec.volumes.map((v) => v.name)).not.toContain('svc-debug-shell');
    }
  });
});

describe('the debug session’s output in the log', () => {
  it('marks every line tmate prints, so that the server can mask them for readers (real /bin/sh)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-tmate-'));
    try {
      // A stand-in for tmate that prints what `tmate -F` prints, then ends the session.
      await writeFile(
        join(dir, 'tmate'),
        '#!/bin/sh\necho "ssh session: ssh SECRETTOKEN@relay.example.com"\necho "web session: https://relay.example.com/t/SECRETTOKEN" >&2\n',
        { mode: 0o755 },
      );
      const script = debugShellScript(['echo building', 'exit 3'], SHARE).replaceAll(TMATE_DIR, dir);
      const run = spawnSync('/bin/sh', ['-c', script], {
        encoding: 'utf8',
        env: { PATH: '/usr/bin:/bin', TMPDIR: dir },
      });
      expect(run.status).toBe(3);
      const lines = run.stdout.trimEnd().split('\n');
      expect(lines.filter((line) => line.includes('SECRETTOKEN'))).toEqual([
        `${DEBUG_SHELL_MARK}ssh session: ssh SECRETTOKEN@relay.example.com`,
        `${DEBUG_SHELL_MARK}web session: https://relay.example.com/t/SECRETTOKEN`,
      ]);
      expect(lines).toContain('building');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
