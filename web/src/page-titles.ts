import type { Route } from './router.js';

/**
 * The browser tab's title of a page, most specific first (`Insights · octocat/app`); undefined for
 * the build and log pages, which say their build's status in it themselves.
 */
export function titleOf(route: Route): string | undefined {
  const repo = 'owner' in route ? `${route.owner}/${route.name}` : '';
  switch (route.page) {
    case 'repos':
      return 'Repositories';
    case 'account':
      return 'Account';
    case 'admin':
      return 'Administration';
    case 'admin-running':
      return 'Running now · Administration';
    case 'settings':
      return `Settings · ${repo}`;
    case 'repo':
      return repo;
    case 'tests':
      return `Tests · ${repo}`;
    case 'test':
      return `Test ${route.id} · ${repo}`;
    case 'insights':
      return `Insights · ${repo}`;
    case 'org-insights':
      return `Insights · ${route.org}`;
    case 'missing':
      return 'Not found';
    case 'build':
    case 'log':
      return undefined;
  }
}
