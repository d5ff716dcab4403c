import type { Repo } from '../../../core/repo.js';
import type { User, UserStore } from '../../../core/user.js';
import type { Principal } from '../../auth/authenticator.js';
import type { RepoAccess } from '../repo-access.js';

/** A stream's viewer is asked again after this long (account, then rights). */
export const VIEWER_RECHECK_MS = 60_000;

/**
 * The viewer of a long-lived stream, asked again while the stream lasts: a stream must not outlive
 * the account that opened it (deleted, deactivated, its token rotated or its sessions ended by a
 * logout), nor a right to a private repository that was taken away. Rights come from RepoAccess
 * with the account as it is now (a demoted administrator is not one any more), so they follow the
 * same refresh window as every other request. Anonymous viewers see public repositories only.
 */
export class StreamViewer {
  readonly #users: Pick<UserStore, 'find'>;
  readonly #access: Pick<RepoAccess, 'rights'>;
  readonly #everyMs: number;
  readonly #now: () => number;
  #principal: Principal | undefined;
  #checkedAt: number;
  #gone = false;
  readonly #readable = new Map<number, { read: boolean; until: number }>();

  constructor(deps: {
    users: Pick<UserStore, 'find'>;
    access: Pick<RepoAccess, 'rights'>;
    principal: Principal | undefined;
    everyMs?: number;
    now?: () => number;
  }) {
    this.#users = deps.users;
    this.#access = deps.access;
    this.#principal = deps.principal;
    this.#everyMs = deps.everyMs ?? VIEWER_RECHECK_MS;
    this.#now = deps.now ?? Date.now;
    this.#checkedAt = this.#now();
  }

  /** False once the account that opened the stream may not use it any more. */
  async present(): Promise<boolean> {
    if (this.#gone) return false;
    const principal = this.#principal;
    if (principal === undefined || this.#now() - this.#checkedAt < this.#everyMs) return true;
    this.#checkedAt = this.#now();
    const user = await this.#users.find(principal.user.id);
    if (user === undefined || !sameAccount(principal, user)) {
      this.#gone = true;
      return false;
    }
    this.#principal = { ...principal, user };
    this.#readable.clear();
    return true;
  }

  /** Whether the viewer may read the repository now: public ones always, others by their rights. */
  async mayRead(repo: Repo): Promise<boolean> {
    if (!(await this.present())) return false;
    if (!repo.private && repo.visibility === 'public') return true;
    const principal = this.#principal;
    if (principal === undefined) return false;
    const now = this.#now();
    const known = this.#readable.get(repo.id);
    if (known !== undefined && known.until > now) return known.read;
    const { read } = await this.#access.rights(repo, principal);
    if (this.#readable.size >= 1_000) this.#readable.clear();
    this.#readable.set(repo.id, { read, until: now + this.#everyMs });
    return read;
  }
}

/** The account is still the one the stream was opened with: active, same token, same sessions. */
function sameAccount(principal: Principal, user: User): boolean {
  if (!user.active || user.tokenHash !== principal.user.tokenHash) return false;
  return principal.via !== 'session' || user.sessionGen === principal.user.sessionGen;
}
