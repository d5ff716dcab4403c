import type { MatchFacts } from '../../pipeline/match/conditions.js';

/** A push of main to acme/site: the build facts policies and namespace rules are matched against. */
export const PUSH_FACTS: MatchFacts = {
  branch: 'main',
  event: 'push',
  ref: 'refs/heads/main',
  repo: 'acme/site',
  instance: 'ci.example.com',
  target: '',
  cron: '',
  action: '',
};
