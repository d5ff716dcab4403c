import type { Urls } from './render.js';
import type { GitHubState } from './state.js';

/** What every route sees: the state, the double's URLs and its OAuth app. */
export interface Env {
  state: GitHubState;
  urls: Urls;
  app: { clientId: string; clientSecret: string };
}
