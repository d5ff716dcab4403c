import type { BuildChangedFiles, NewBuild } from '../../core/build.js';
import { SvcError } from '../../core/errors.js';
import type { ScmChange, ScmProvider, ScmRepoRef, ScmToken } from '../../core/scm.js';
import { readsPaths, type MatchFacts, type Pipeline } from '../../pipeline/index.js';
import { selectPipelines, type SelectedPipeline } from './select.js';

/** What the build changes, as the provider is asked for it; a string says why nothing can be asked. */
export function changeOf(build: Pick<NewBuild, 'event' | 'ref' | 'before' | 'after'>): ScmChange | string {
  if (build.event === 'push' && build.ref.startsWith('refs/heads/'))
    return { kind: 'push', before: build.before, after: build.after };
  if (build.event === 'pull_request') {
    const number = /^refs\/(?:pull|pull-requests|merge-requests)\/(\d+)\//.exec(build.ref)?.[1];
    if (number !== undefined) return { kind: 'pull', number: Number(number) };
    return `the pull request's number is not in its ref ${build.ref}`;
  }
  return `a ${build.event} build has no changed files to compare`;
}

/**
 * The changed files of a build whose `paths` conditions need them, from the provider; when they
 * cannot be known, why (then every `paths` condition holds, and the build says so).
 */
export async function askChangedFiles(
  provider: Pick<ScmProvider, 'changedFiles'>,
  token: ScmToken,
  repo: ScmRepoRef,
  build: Pick<NewBuild, 'event' | 'ref' | 'before' | 'after'>,
): Promise<Omit<BuildChangedFiles, 'skipped'>> {
  const change = changeOf(build);
  if (typeof change === 'string') return { unknown: change };
  if (provider.changedFiles === undefined)
    return { unknown: 'svc does not read this git provider’s changed files yet' };
  try {
    const answer = await provider.changedFiles(token, repo, change);
    return answer.known ? { files: answer.files } : { unknown: answer.reason };
  } catch (error) {
    if (!(error instanceof SvcError)) throw error;
    return { unknown: `the git provider did not list them: ${error.message}` };
  }
}

/**
 * The pipelines the build runs, and — when some condition reads `paths` — what those conditions
 * saw: the changed files (`ask`ed once) or why they are not known, and the pipelines whose
 * `trigger: paths` left them out, so that "why did this not run" has an answer on the build.
 */
export async function selectWithPaths(
  pipelines: readonly Pipeline[],
  facts: MatchFacts,
  ask: () => Promise<Omit<BuildChangedFiles, 'skipped'>>,
): Promise<{ selected: SelectedPipeline[]; changedFiles?: BuildChangedFiles }> {
  if (!pipelines.some(readsPaths)) return { selected: selectPipelines(pipelines, facts) };
  const seen = await ask();
  if (seen.files === undefined)
    return { selected: selectPipelines(pipelines, facts), changedFiles: { ...seen, skipped: [] } };
  const selected = selectPipelines(pipelines, { ...facts, changedFiles: seen.files });
  const chosen = new Set(selected.map(({ pipeline }) => pipeline.name));
  const skipped = selectPipelines(pipelines, facts)
    .map(({ pipeline }) => pipeline.name)
    .filter((name) => !chosen.has(name));
  return { selected, changedFiles: { ...seen, skipped } };
}

/** What a skipped hook says about paths, when they are why nothing runs. */
export function pathsNote(changed: BuildChangedFiles | undefined): string {
  if (changed?.files === undefined || changed.skipped.length === 0) return '';
  const shown = changed.files.slice(0, 5).join(', ');
  const more = changed.files.length > 5 ? ` and ${changed.files.length - 5} more` : '';
  return `; the paths conditions of ${changed.skipped.join(', ')} match none of the ${changed.files.length} changed files (${shown}${more})`;
}
