import { execFile } from 'node:child_process';
import { readsPaths } from '../../pipeline/match/conditions.js';
import type { Pipeline } from '../../pipeline/types.js';
import type { CommandIO } from '../io.js';
import type { ExecArgs } from './args.js';

/** What `svc exec --paths-base` found, or why it could not. */
export type ChangedFiles = { ok: true; files: string[] } | { ok: false; error: string };

/** Enough for the largest diff a path condition reads (git's own output, names only). */
const MAX_OUTPUT = 64 * 1024 * 1024;

function gitLines(cwd: string, args: readonly string[]): Promise<{ lines: string[] } | { error: string }> {
  return new Promise((resolve) => {
    execFile('git', args, { cwd, maxBuffer: MAX_OUTPUT }, (error, stdout, stderr) => {
      if (error !== null) {
        const said = stderr.trim().split('\n')[0] ?? '';
        resolve({ error: said === '' ? error.message : said });
        return;
      }
      // -z: names as they are (no quoting of unusual characters), NUL-separated.
      resolve({ lines: stdout.split('\0').filter((line) => line !== '') });
    });
  });
}

/**
 * The files of the working copy `cwd` that differ from `base` (a commit, branch or tag): changed,
 * added, deleted or renamed (both names) since it, committed or not, and files git does not track
 * yet (but would: ignored ones are left out) — what a push of this working copy would change.
 */
export async function changedSince(cwd: string, base: string): Promise<ChangedFiles> {
  if (base.startsWith('-')) return { ok: false, error: `"${base}" is not a git revision` };
  const [diff, untracked] = await Promise.all([
    gitLines(cwd, ['diff', '--name-only', '-z', '--no-renames', base, '--']),
    gitLines(cwd, ['ls-files', '--others', '--exclude-standard', '-z']),
  ]);
  if ('error' in diff) return { ok: false, error: diff.error };
  if ('error' in untracked) return { ok: false, error: untracked.error };
  return { ok: true, files: [...new Set([...diff.lines, ...untracked.lines])].sort() };
}

/**
 * The changed files `paths` conditions see in `svc exec`: with `--paths-base`, git's difference;
 * else undefined (the conditions hold), which is said when the pipeline has such conditions.
 * 'failed' once the reason is printed (a revision git does not know, not a working copy).
 */
export async function pathsFacts(
  pipeline: Pipeline,
  args: Pick<ExecArgs, 'pathsBase'>,
  io: Pick<CommandIO, 'cwd' | 'stderr'>,
): Promise<readonly string[] | undefined | 'failed'> {
  const base = args.pathsBase;
  if (base === undefined) {
    if (readsPaths(pipeline))
      io.stderr(
        'paths: the changed files are not known without --paths-base (e.g. --paths-base origin/main), so paths conditions hold\n',
      );
    return undefined;
  }
  const changed = await changedSince(io.cwd, base);
  if (!changed.ok) {
    io.stderr(`svc exec: --paths-base ${base}: git could not compare with it: ${changed.error}\n`);
    return 'failed';
  }
  if (readsPaths(pipeline))
    io.stderr(
      `paths: ${changed.files.length} file${changed.files.length === 1 ? '' : 's'} changed since ${base}\n`,
    );
  return changed.files;
}
