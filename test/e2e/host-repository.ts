import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A bare repository on this machine, owned by the account the steps run as (git refuses to read a
 * repository another user owns), and a working copy that pushes to it.
 */
export function localRepository(owner: string): {
  url: string;
  commit(files: Record<string, string>, message: string): string;
} {
  const dir = mkdtempSync(join(tmpdir(), 'svc-e2e-ssh-git-'));
  chmodSync(dir, 0o755);
  const bare = join(dir, 'app.git');
  const work = join(dir, 'work');
  const git = (cwd: string, ...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=Octocat', '-c', 'user.email=octocat@example.com', ...args], {
      cwd,
      encoding: 'utf8',
    }).trim();
  git(dir, 'init', '-q', '--bare', '-b', 'main', bare);
  git(dir, 'init', '-q', '-b', 'main', work);
  return {
    url: `file://${bare}`,
    commit(files, message) {
      for (const [path, content] of Object.entries(files)) writeFileSync(join(work, path), content);
      git(work, 'add', '-A');
      git(work, 'commit', '-q', '-m', message);
      execFileSync('chown', ['-R', 'root', bare]);
      git(work, 'push', '-q', bare, 'main');
      execFileSync('chown', ['-R', owner, bare]);
      return git(work, 'rev-parse', 'HEAD');
    },
  };
}
