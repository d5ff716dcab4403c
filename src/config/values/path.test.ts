import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

  // root reads every file whatever its mode, so an unreadable file can only be tested as another user.
  it.skipIf(process.getuid?.() === 0)('refuses an unreadable file', () => {
    const path = write('locked.pem', 'x');
    chmodSync(path, 0o000);
    expect(filePath.parse(path, ctx)).toMatchObject({
      ok: false,
      message: expect.stringMatching(/cannot be read \(EACCES\)/) as unknown,
    });
  });
});

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
