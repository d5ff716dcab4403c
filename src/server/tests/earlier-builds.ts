import type { Build, BuildStore } from '../../core/build.js';

/** Builds of a ref looked at to find the branch's previous results: a few, since skipped builds have none. */
const LOOK_BACK = 5;

/**
 * The builds of `build`'s ref (its branch, or its pull request) before it, newest first, at most
 * LOOK_BACK: where "the branch's previous build" of a test is looked for.
 */
export async function earlierOnRef(
  builds: Pick<BuildStore, 'list'>,
  build: Pick<Build, 'repoId' | 'number' | 'ref'>,
): Promise<Build[]> {
  if (build.ref === '') return [];
  const recent = await builds.list(build.repoId, { page: 1, perPage: 2 * LOOK_BACK }, { ref: build.ref });
  return recent.filter((b) => b.number < build.number).slice(0, LOOK_BACK);
}
