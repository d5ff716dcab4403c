import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { zstdDecompressSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Artifact } from '../../../src/core/artifact.js';
import { stageSource, upload } from '../../api/artifacts-support.js';
import { enable, loginAs, tokenOf } from '../../api/client.js';
import { startHarness, type Harness } from '../../api/harness.js';
import { BUILD_AND_TEST } from '../../api/pipelines.js';
import { clientFor, jsonOf, type Svc } from './run.js';

describe('svc build artifacts against a real server', () => {
  let h: Harness;
  let svc: Svc;
  let cwd = '';
  let binaries: Artifact;
  let logs: Artifact;

  beforeAll(async () => {
    h = await startHarness();
    h.github.addUser({ login: 'octocat' });
    h.github.addRepo({ owner: 'octocat', name: 'app', private: true });
    const session = await loginAs(h, 'octocat');
    await enable(h, session, 'octocat/app');
    h.github.commit('octocat/app', 'main', { '.drone.yml': BUILD_AND_TEST }, 'first');
    expect(await h.github.push('octocat/app', 'main', `${h.url}/hook`)).toBe(200);
    cwd = mkdtempSync(join(tmpdir(), 'svc-artifacts-cli-'));
    svc = clientFor(h, await tokenOf(h, session), cwd);
    binaries = await upload(h, await stageSource(h, 'octocat/app', 1, 1), 'binaries', [
      { path: 'dist/app', content: Buffer.alloc(3000, 7), mode: 0o755 },
      { path: 'dist/notes.txt', content: 'notes\n' },
    ]);
    const test = await stageSource(h, 'octocat/app', 1, 2, { number: 1, name: 'unit' });
    logs = await upload(h, test, 'logs', [{ path: 'unit.log', content: 'ok\n' }]);
    // Another stage's artifact of the same name: a name alone no longer says which.
    await upload(h, test, 'binaries', [{ path: 'other', content: 'x' }]);
  });
  afterAll(() => h.close());

  it('lists the artifacts as a table, or as the server’s JSON', async () => {
    const listed = await svc('build', 'artifacts', 'ls', 'octocat/app', '1');
    expect(listed.code, listed.stderr).toBe(0);
    const lines = listed.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+STAGE\s+STEP\s+NAME\s+FILES\s+SIZE\s+EXPIRES$/);
    expect(lines[1]).toMatch(
      new RegExp(
        `^${binaries.id}\\s+build\\s+compile\\s+binaries\\s+2\\s+2\\.9 KiB\\s+\\d{4}-\\d\\d-\\d\\d `,
      ),
    );
    expect(lines.slice(2).map((l) => l.split(/\s+/).slice(1, 4))).toEqual([
      ['test', 'unit', 'binaries'],
      ['test', 'unit', 'logs'],
    ]);
    const json = jsonOf<{ id: number; name: string }[]>(
      await svc('build', 'artifacts', 'ls', 'octocat/app', '1', '--format', 'json'),
    );
    expect(json.map((a) => a.name)).toEqual(['binaries', 'binaries', 'logs']);
    const help = await svc('build', '--help');
    expect(help.stdout).toMatch(/artifacts get <owner\/name> <number> <id\|name>/);
  });

  it('downloads an artifact by name into <name>.zip here, and refuses to overwrite it without --force', async () => {
    const got = await svc('build', 'artifacts', 'get', 'octocat/app', '1', 'logs');
    expect(got.code, got.stderr).toBe(0);
    const file = join(cwd, 'logs.zip');
    expect(got.stderr).toMatch(new RegExp(`^logs: \\d+ B in \\d+\\.\\d s to ${file}\\n$`));
    expect(readFileSync(file).length).toBe(logs.zipSize);
    expect(execFileSync('unzip', ['-p', file, 'unit.log']).toString()).toBe('ok\n');

    writeFileSync(file, 'mine');
    const refused = await svc('build', 'artifacts', 'get', 'octocat/app', '1', 'logs');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`svc: ${file} exists: give --force to overwrite it, or -o another file`);
    expect(readFileSync(file, 'utf8')).toBe('mine');
    expect((await svc('build', 'artifacts', 'get', 'octocat/app', '1', 'logs', '--force')).code).toBe(0);
    expect(readFileSync(file).length).toBe(logs.zipSize);
    // No part file is left behind.
    expect(readdirSync(cwd).filter((name) => name.includes('.part'))).toEqual([]);
  });

  it('downloads by id, as tar.zst, into the file -o names; a name two stages share needs the id', async () => {
    const out = join(cwd, 'out', 'b.tar.zst');
    const missing = await svc(
      'build',
      'artifacts',
      'get',
      'octocat/app',
      '1',
      String(binaries.id),
      '-o',
      out,
    );
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^svc: cannot write .*\/out\/b\.tar\.zst: ENOENT\n/);
    expect(existsSync(join(cwd, 'out'))).toBe(false);
    execFileSync('mkdir', ['-p', join(cwd, 'out')]);
    const got = await svc(
      'build',
      'artifacts',
      'get',
      'octocat/app',
      '1',
      String(binaries.id),
      '--format',
      'tar.zst',
      '-o',
      'out/b.tar.zst',
    );
    expect(got.code, got.stderr).toBe(0);
    const tarText = zstdDecompressSync(readFileSync(out)).toString('latin1');
    expect(tarText).toContain('dist/notes.txt');
    expect(tarText).toContain('notes\n');

    const ambiguous = await svc('build', 'artifacts', 'get', 'octocat/app', '1', 'binaries');
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toMatch(/each have an artifact "binaries": give its id/);
    const unknown = await svc('build', 'artifacts', 'get', 'octocat/app', '1', 'nope');
    expect(unknown.stderr).toMatch(/^svc: build 1 has no artifact "nope"\n/);
    const badFormat = await svc('build', 'artifacts', 'get', 'octocat/app', '1', 'logs', '--format', 'rar');
    expect(badFormat.code).toBe(2);
    expect(badFormat.stderr).toMatch(/--format: expected zip or tar\.zst, got "rar"/);
  });
});
