import type { Build } from './build.js';

/** The lists of newest builds Drone keeps per repository: by branch, pull request and deployment target. */
export const LATEST_KINDS = ['branch', 'pull_request', 'deployment'] as const;
export type LatestKind = (typeof LATEST_KINDS)[number];

/**
 * Which list a new build heads, by Drone's rule: a push heads its branch, a pull request its number
 * (the first digits of its ref, `refs/pull/7/head` → `7`), a promotion or rollback its target; other
 * events (tags, cron jobs, custom builds) head none.
 */
export function latestKeyOf(
  build: Pick<Build, 'event' | 'target' | 'ref' | 'deployTo'>,
): { kind: LatestKind; name: string } | undefined {
  switch (build.event) {
    case 'push':
      return { kind: 'branch', name: build.target };
    case 'pull_request': {
      const number = /\d+/.exec(build.ref)?.[0];
      return number === undefined ? undefined : { kind: 'pull_request', name: number };
    }
    case 'promote':
    case 'rollback':
      return build.deployTo === '' ? undefined : { kind: 'deployment', name: build.deployTo };
    case 'tag':
    case 'cron':
    case 'custom':
      return undefined;
  }
}
