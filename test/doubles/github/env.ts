import type { Urls } from './render.js';
import type { GitHubState } from './state.js';

/** What every route sees: the state, the double's URLs and its OAuth app. */
export interface Env {
  state: GitHubState;
  urls: Urls;
  app: { clientId: string; clientSecret: string };
  /** Each pull request's base commit when it was opened, by `<repo id>#<number>` (its files are from there). */
  pullBases: Map<string, string>;
}
