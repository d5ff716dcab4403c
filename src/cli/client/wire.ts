/* The parts of the API's JSON the client shows (docs/api.md has the whole shapes). */

export interface WireStep {
  number: number;
  name: string;
  status: string;
  exit_code?: number;
  started?: number;
  stopped?: number;
}

export interface WireStage {
  number: number;
  name: string;
  status: string;
  machine?: string;
  started?: number;
  stopped?: number;
  error?: string;
  pending_reason?: { code: string; message: string };
  /** svc: the environment the stage deploys to and its approvals. */
  deployment?: { environment: string; approvals_required: number; approved: boolean; deadline: number };
  steps?: WireStep[];
}

export interface WireBuild {
  number: number;
  status: string;
  event: string;
  ref: string;
  target: string;
  after: string;
  message: string;
  author_login: string;
  trigger: string;
  deploy_to?: string;
  params?: Record<string, string>;
  error?: string;
  created: number;
  started: number;
  finished: number;
  stages?: WireStage[];
}

/** Statuses after which nothing changes any more. */
export const DONE = new Set(['success', 'failure', 'error', 'killed', 'skipped', 'declined']);
