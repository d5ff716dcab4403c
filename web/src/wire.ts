/* The API's JSON, as far as the pages read it (docs/api.md has the whole shapes). */

export interface Build {
  number: number;
  status: string;
  event: string;
  ref: string;
  source: string;
  target: string;
  after: string;
  link: string;
  message: string;
  author_login: string;
  author_avatar: string;
  sender: string;
  deploy_to: string;
  error: string;
  created: number;
  started: number;
  finished: number;
  /** svc's path filters: the changed files, or why they are not known, and what they left out. */
  changed_files?: string[];
  changed_files_unknown?: string;
  paths_skipped?: string[];
  stages?: Stage[];
}

export interface Stage {
  number: number;
  name: string;
  status: string;
  depends_on: string[] | null;
  machine: string;
  error: string;
  started: number;
  stopped: number;
  pending_reason?: { code: string; message: string };
  /** The environment the stage deploys to and its approvals (svc's addition). */
  deployment?: { environment: string; approvals_required: number; approved: boolean; deadline: number };
  steps?: Step[];
}

/** One decision on a stage waiting for approval. */
export interface Approval {
  id: number;
  stage: number;
  login: string;
  decision: 'approve' | 'decline' | 'timeout';
  comment: string;
  created: number;
}

export interface Step {
  number: number;
  name: string;
  status: string;
  exit_code: number;
  error: string;
  started: number;
  stopped: number;
  /** How many times it ran; more than 1 after its `retry:`. */
  attempts?: number;
}

export interface Repo {
  slug: string;
  namespace: string;
  name: string;
  active: boolean;
  visibility: string;
  default_branch: string;
  link: string;
  permissions?: { read: boolean; write: boolean; admin: boolean };
  build?: Build;
}

export const DONE = new Set(['success', 'failure', 'error', 'killed', 'skipped', 'declined']);
