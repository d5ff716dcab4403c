import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gitAs } from '../../../test/support/git-client.js';
import { changedSince } from './changed-files.js';

const git = gitAs({ name: 'Ada', email: 'ada@example.com' });

describe('changedSince (svc exec --paths-base)', () => {
  it('lists what differs from the base: committed or not, added, deleted, renamed, untracked; not ignored files', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-paths-'));
    git(dir, 'init', '-q', '-b', 'main');
    for (const name of ['kept.txt', 'edited.txt', 'gone.txt', 'moved.txt', '.gitignore'])
      writeFileSync(join(dir, name), name === '.gitignore' ? 'build/\n' : `${name}\n`);
    git(dir, 'add', '.');
    git(dir, 'commit', '-q', '-m', 'base');
    git(dir, 'tag', 'base');
    writeFileSync(join(dir, 'edited.txt'), 'changed\n');
    git(dir, 'commit', '-q', '-am', 'an edit');
    rmSync(join(dir, 'gone.txt'));
    renameSync(join(dir, 'moved.txt'), join(dir, 'moved to.txt'));
    writeFileSync(join(dir, 'new.txt'), 'new\n');
    rmSync(join(dir, 'build'), { recursive: true, force: true });
    writeFileSync(join(dir, 'ignored.log'), '');
    writeFileSync(join(dir, '.gitignore'), 'build/\n*.log\n');
    expect(await changedSince(dir, 'base')).toEqual({
      ok: true,
      files: ['.gitignore', 'edited.txt', 'gone.txt', 'moved to.txt', 'moved.txt', 'new.txt'],
    });
  });

  it('says why when git cannot compare', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-paths-'));
    git(dir, 'init', '-q', '-b', 'main');
    writeFileSync(join(dir, 'a'), 'a');
    git(dir, 'add', '.');
    git(dir, 'commit', '-q', '-m', 'one');
    const unknown = await changedSince(dir, 'origin/nowhere');
    expect(unknown.ok).toBe(false);
    expect(unknown.ok ? '' : unknown.error).toMatch(/origin\/nowhere/);
    expect(await changedSince(dir, '--output=/tmp/x')).toEqual({
      ok: false,
      error: '"--output=/tmp/x" is not a git revision',
    });
  });
});
