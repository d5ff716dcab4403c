import type { Build } from '../../core/build.js';

/**
 * The context of a build's commit status, as Drone names it: SVC_STATUS_NAME followed by the event —
 * `/push`, `/pr`, `/tag`, or `/promote/<target>` — and the name alone for other events (cron, custom,
 * rollback). Repositories moving from Drone keep the contexts their branch protection requires by
 * setting SVC_STATUS_NAME to `continuous-integration/drone`.
 */
export function statusContext(name: string, build: Pick<Build, 'event' | 'deployTo'>): string {
  switch (build.event) {
    case 'push':
      return `${name}/push`;
    case 'pull_request':
      return `${name}/pr`;
    case 'tag':
      return `${name}/tag`;
    case 'promote':
      return `${name}/promote/${targetSlug(build.deployTo)}`;
    case 'cron':
    case 'custom':
    case 'rollback':
      return name;
  }
}

/**
 * A deployment target as Drone writes it into the context (its slug library, English rules):
 * accents dropped, `&` read as "and", lower case, every run of other characters one dash, no dash
 * or underscore at either end. Letters without a Latin form are dropped (Drone transliterates them).
 */
export function targetSlug(target: string): string {
  return target
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/&/g, ' and ')
    .toLowerCase()
    .replace(/[^a-z0-9_-]/g, '-')
    .replace(/-+/g, '-')
    .replace(/^[-_]+|[-_]+$/g, '');
}
