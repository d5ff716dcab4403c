import { execFileSync } from 'node:child_process';

/**
 * The real `git` as a person on this machine runs it, in `cwd` with `cwd` as its home (no config
 * of the machine's or the user's), never prompting, committing as `author`. Answers the output.
 */
export function gitAs(author: { name: string; email: string }): (cwd: string, ...args: string[]) => string {
  return (cwd, ...args) =>
    execFileSync('git', args, {
      cwd,
      encoding: 'utf8',
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: cwd,
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_TERMINAL_PROMPT: '0',
        GIT_AUTHOR_NAME: author.name,
        GIT_AUTHOR_EMAIL: author.email,
        GIT_COMMITTER_NAME: author.name,
        GIT_COMMITTER_EMAIL: author.email,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    }).trim();
}
