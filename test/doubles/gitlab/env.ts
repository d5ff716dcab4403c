import type { Context, Reply } from '../forge/router.js';
import type { ForgeState } from '../forge/state.js';

/** The double's own addresses. */
export interface GitLabUrls {
  web: string;
  api: string;
}

/** What every route sees. */
export interface Env {
  state: ForgeState;
  urls: GitLabUrls;
  app: { clientId: string; clientSecret: string };
  /** OAuth codes (single use): for whom, and the redirect URI they were issued for. */
  codes: Map<string, { login: string; redirectUri: string }>;
  /** OAuth access tokens and when they expire (epoch ms of the double's clock). */
  access: Map<string, { login: string; expires: number }>;
  refresh: Map<string, string>;
  now: () => number;
  /** Every API call answers 429 until this time (epoch ms); 0: no limit. */
  limitedUntil: number;
  /** Group ids by lower-case full path. */
  groups: Map<string, number>;
  /** Projects (lower-case full paths) whose users' access comes from a parent group: no level in their answers. */
  inherited: Set<string>;
  unknown: string[];
}

export interface GitLabRoute {
  method: string;
  pattern: string;
  handler: (ctx: Context) => Reply;
}

/** GitLab's helper errors: `{"message": "404 Project Not Found"}`. */
export const message = (status: number, text: string): Reply => ({ status, body: { message: text } });
