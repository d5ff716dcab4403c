import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { filePath, namespaceRulesFile } from './path.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-path-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const ctx = { cwd: dir, env: {}, secret: false };

function write(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

describe('filePath', () => {
  it('resolves relative paths against the working directory', () => {
    const path = write('cert.pem', 'x');
    expect(filePath.parse('cert.pem', ctx)).toEqual({ ok: true, value: path });
    expect(filePath.parse(path, ctx)).toEqual({ ok: true, value: path });
  });

  it('names a missing file, relative and resolved', () => {
    expect(filePath.parse('nope.pem', ctx)).toEqual({
      ok: false,
      message: `file "nope.pem" (${join(dir, 'nope.pem')}) does not exist; expected the path of a readable file (relative paths start at the working directory)`,
    });
  });

  it('refuses a directory', () => {
    mkdirSync(join(dir, 'folder'));
    expect(filePath.parse('folder', ctx)).toMatchObject({
      ok: false,
      message: expect.stringMatching(/is not a file/) as unknown,
    });
  });

  // root reads every file whatever its mode: as root (CI), the check runs in a child process as `nobody`.
  it('refuses an unreadable file', () => {
    const path = write('locked.pem', 'x');
    chmodSync(path, 0o000);
    chmodSync(dir, 0o755);
    expect(parseAsUnprivileged(path)).toMatchObject({
      ok: false,
      message: expect.stringMatching(/cannot be read \(EACCES\)/) as unknown,
    });
  });
});

const NOBODY = 65534;

/** `filePath.parse` in this process, or, when this process is root, in a child running as nobody. */
function parseAsUnprivileged(path: string): unknown {
  if (process.getuid?.() !== 0) return filePath.parse(path, ctx);
  const module = pathToFileURL(fileURLToPath(new URL('./path.ts', import.meta.url))).href;
  const script = `import(${JSON.stringify(module)}).then((m) => console.log(JSON.stringify(m.filePath.parse(${JSON.stringify(path)}, { cwd: '/', env: {}, secret: false }))))`;
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  const out = execFileSync(process.execPath, ['--import', tsx, '--input-type=module', '-e', script], {
    uid: NOBODY,
    gid: NOBODY,
    cwd: '/',
    env: { PATH: process.env.PATH ?? '', HOME: '/tmp', TSX_DISABLE_CACHE: '1' },
  });
  return JSON.parse(out.toString()) as unknown;
}

describe('namespaceRulesFile', () => {
  it('reads namespaces and their patterns', () => {
    const path = write('rules.yml', 'prod:\n  - acme/*\nstaging: [acme/*, octocat/*]\n');
    expect(namespaceRulesFile.parse(path, ctx)).toEqual({
      ok: true,
      value: { path, rules: { prod: ['acme/*'], staging: ['acme/*', 'octocat/*'] } },
    });
    expect(namespaceRulesFile.print({ path, rules: {} })).toBe(path);
  });

  it('reads an empty file as no rules', () => {
    const path = write('empty.yml', '');
    expect(namespaceRulesFile.parse(path, ctx)).toEqual({ ok: true, value: { path, rules: {} } });
  });

  it('reports YAML syntax errors', () => {
    const path = write('broken.yml', 'prod: [acme/*\n');
    const parsed = namespaceRulesFile.parse(path, ctx);
    expect(parsed).toMatchObject({
      ok: false,
      message: expect.stringContaining(`file "${path}" is not valid YAML: `) as unknown,
    });
  });

  it('reports entries that are not lists of patterns', () => {
    const path = write('shape.yml', 'prod: acme/*\nstaging:\n  - 42\n');
    expect(namespaceRulesFile.parse(path, ctx)).toEqual({
      ok: false,
      message: `file "${path}" does not hold a YAML mapping of namespace names to lists of repository patterns (wrong: prod, staging.0)`,
    });
  });

  it('reports a missing file like any path', () => {
    expect(namespaceRulesFile.parse('gone.yml', ctx)).toMatchObject({
      ok: false,
      message: expect.stringMatching(/does not exist/) as unknown,
    });
  });
});
