import type { Perm } from '../../../core/perm.js';
import type { Repo } from '../../../core/repo.js';
import { repoToWire } from '../../../runner/client/wire/convert.js';

/**
 * A repository as Drone's API shows it: the same shape the runner protocol sends (never the webhook
 * secret nor the signing key), plus the settings only the API shows (`auto_cancel_running`,
 * `throttle`, svc's `approval` and `fork_id_tokens`) and the asking user's `permissions` when known.
 */
export function repoJson(repo: Repo, perm?: Pick<Perm, 'read' | 'write' | 'admin'>): Record<string, unknown> {
  return {
    ...repoToWire(repo),
    auto_cancel_running: repo.cancelRunning,
    throttle: repo.throttle,
    approval: repo.approval,
    fork_id_tokens: repo.forkIdTokens,
    ...(perm === undefined ? {} : { permissions: { read: perm.read, write: perm.write, admin: perm.admin } }),
  };
}
