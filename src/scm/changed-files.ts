import type { ScmChangedFiles } from '../core/scm.js';

/**
 * How many changed files svc reads from a provider's pages at most. GitHub stops listing a pull
 * request's files there too; past it a list costs many calls for a build whose `paths` conditions
 * then hold anyway, so svc stops and says the list is not known.
 */
export const MAX_CHANGED_FILES = 3000;

/** Whether a push's `before` names no commit (all zeros, or none): the push created the branch. */
export function createdBranch(before: string): boolean {
  return /^0*$/.test(before);
}

/** Why a push that created its branch has no changed files svc can know. */
export function branchCreated(): ScmChangedFiles {
  return {
    known: false,
    reason: 'the push created the branch: there is no earlier commit to compare with',
  };
}

/**
 * Why a push's files are not known when the provider cannot compare its two commits: after a
 * forced push the earlier commit may be gone (providers answer 404 or 400 then).
 */
export function cannotCompare(provider: string, before: string, after: string): ScmChangedFiles {
  return {
    known: false,
    reason: `${provider} cannot compare ${before.slice(0, 12)} with ${after.slice(0, 12)} (a forced push's earlier commit may be gone)`,
  };
}

/** Why a list svc stopped reading after MAX_CHANGED_FILES is not known. */
export function tooManyFiles(provider: string, what: string): ScmChangedFiles {
  return {
    known: false,
    reason: `${provider} lists more than ${MAX_CHANGED_FILES} changed files of ${what}; svc reads no more`,
  };
}

/** The changed files from every path a provider named (a rename's old and new one), each once, sorted. */
export function knownFiles(paths: Iterable<string | null | undefined>): ScmChangedFiles {
  const files = new Set<string>();
  for (const path of paths) if (path !== undefined && path !== null && path !== '') files.add(path);
  return { known: true, files: [...files].sort() };
}
