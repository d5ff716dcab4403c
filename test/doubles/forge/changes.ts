/**
 * What the forge doubles derive from their commits to answer "which files changed": the difference
 * of two trees, merge bases, the commits between two, and a pull request's two ends. Each double
 * renders these in its provider's own shape.
 */
import type { Commit, Repo } from './state.js';

/** A file two trees disagree on; a rename has the path it had before. */
export interface FileChange {
  path: string;
  status: 'added' | 'modified' | 'removed' | 'renamed';
  oldPath?: string;
}

/**
 * The files whose content differs from `base` to `head` (every file of `head` without a base),
 * sorted by path. With `renames`, a removed file and an added one of the same content are one
 * rename, as git's exact rename detection finds them.
 */
export function treeDiff(base: Commit | undefined, head: Commit, renames: boolean): FileChange[] {
  const before = base?.tree ?? new Map<string, string>();
  const changes: FileChange[] = [];
  for (const [path, content] of head.tree) {
    const was = before.get(path);
    if (was === undefined) changes.push({ path, status: 'added' });
    else if (was !== content) changes.push({ path, status: 'modified' });
  }
  const removed = [...before.keys()].filter((path) => !head.tree.has(path)).sort();
  for (const path of removed) {
    const content = before.get(path);
    const added = renames
      ? changes.find((c) => c.status === 'added' && head.tree.get(c.path) === content)
      : undefined;
    if (added === undefined) changes.push({ path, status: 'removed' });
    else Object.assign(added, { status: 'renamed', oldPath: path });
  }
  return changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** The commit and its ancestors, newest first (the doubles' commits have one parent each). */
export function ancestry(repo: Repo, commit: Commit | undefined): Commit[] {
  const chain: Commit[] = [];
  for (let at = commit; at !== undefined; at = repo.commits.get(at.parent ?? '')) chain.push(at);
  return chain;
}

/** The newest commit both reach: where `b`'s history joins `a`'s. */
export function mergeBase(repo: Repo, a: Commit, b: Commit): Commit | undefined {
  const inA = new Set(ancestry(repo, a).map((c) => c.sha));
  return ancestry(repo, b).find((c) => inA.has(c.sha));
}

/** The commits `head` reaches and `base` does not, oldest first (`git log base..head`). */
export function commitsBetween(repo: Repo, base: Commit, head: Commit): Commit[] {
  const inBase = new Set(ancestry(repo, base).map((c) => c.sha));
  return ancestry(repo, head)
    .filter((c) => !inBase.has(c.sha))
    .reverse();
}

/**
 * A pull request's two ends: its head, and where it left the target branch (the default branch,
 * into which the doubles open every pull request); undefined for an unknown number.
 */
export function pullEnds(repo: Repo, number: number): { base: Commit | undefined; head: Commit } | undefined {
  const head = repo.commits.get(repo.pulls.get(number) ?? '');
  const target = repo.commits.get(repo.branches.get(repo.defaultBranch) ?? '');
  if (head === undefined) return undefined;
  return { base: target === undefined ? undefined : mergeBase(repo, target, head), head };
}
