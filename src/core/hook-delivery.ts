/**
 * The webhook deliveries the server has taken, remembered so that a delivery sent again — the
 * provider retrying one svc already acted on, or a captured one replayed by someone else — makes no
 * second build (docs/webhooks.md). A delivery is remembered under a few keys of its repository (the
 * provider's delivery id, a digest of its verified body), each at most 255 characters.
 * - `claim` records every key of one delivery for repository `repoId` at `now` (epoch ms) and
 *   returns true; when any of them is recorded for that repository already it records none and
 *   returns false. Atomic on a database shared by several servers: of claims that share a key,
 *   exactly one returns true, whatever the timing. NotFoundError when the repository does not exist.
 * - `forget` removes those keys of that repository (a claimed delivery that made no build after all,
 *   so that the provider's own redelivery is taken); keys not recorded are not an error.
 * - `prune` deletes every key recorded before `before` (epoch ms) and returns how many.
 */
export interface HookDeliveryStore {
  claim(repoId: number, keys: readonly string[], now: number): Promise<boolean>;
  forget(repoId: number, keys: readonly string[]): Promise<void>;
  prune(before: number): Promise<number>;
}
