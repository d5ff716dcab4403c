import type { DockerClient } from './api/client.js';
import { statusOf } from './api/errors.js';
import { removeMatching, type LabelFilter } from './cleanup.js';

/**
 * What one run created on Docker, as Docker's answers tell, so that `destroy` removes exactly that,
 * by id and name, instead of listing the engine's containers, networks and volumes by the run's
 * label: three list calls on the way out of every stage (~25 ms of `svc exec`'s wall time here).
 * The listing stays for every case the answers do not settle: a create that failed (it may have
 * created its resource all the same: an answer lost on the way), or a removal that failed.
 */
export class RunLedger {
  readonly #containers = new Set<string>();
  readonly #networks = new Set<string>();
  readonly #volumes = new Set<string>();
  /** False once an answer left open whether something of the run exists. */
  #certain = true;
  /** Creates sent and not answered yet (a cancelled run is destroyed while a step may be created). */
  #creating = 0;
  /** Removals of finished steps' containers still under way. */
  readonly #removals = new Set<Promise<void>>();

  /** Runs a create of a container (its id), network or volume (their names), and notes the result. */
  async created<T>(
    kind: 'container' | 'network' | 'volume',
    create: () => Promise<T>,
    nameOf: (created: T) => string,
  ): Promise<T> {
    this.#creating++;
    try {
      const created = await create();
      this.#set(kind).add(nameOf(created));
      return created;
    } catch (error) {
      this.#certain = false;
      throw error;
    } finally {
      this.#creating--;
    }
  }

  /** A finished step's container being removed: once Docker says it is gone, it is off the ledger. */
  removing(id: string, removal: Promise<unknown>): void {
    this.#removals.add(
      removal.then(
        () => void this.#containers.delete(id),
        () => undefined,
      ),
    );
  }

  /**
   * Waits for the removals under way, then removes what the run still has: its containers (by
   * force, with their anonymous volumes), then its networks and volumes, by name. Anything less than
   * certain, or any removal Docker refused for a reason other than the resource being gone, falls
   * back to the listing by `filter`.
   */
  async removeAll(docker: DockerClient, filter: LabelFilter): Promise<void> {
    await Promise.all(this.#removals);
    if (!this.#certain || this.#creating > 0) {
      await removeMatching(docker, filter);
      return;
    }
    let failed = false;
    const attempt = (remove: () => Promise<unknown>): Promise<void> =>
      remove().then(
        () => undefined,
        (error: unknown) => {
          // 404: already gone; anything else leaves the run to the listing below.
          if (statusOf(error) !== 404) failed = true;
        },
      );
    await Promise.all(
      [...this.#containers].map((id) =>
        attempt(() => docker.removeContainer(id, { force: true, volumes: true })),
      ),
    );
    await Promise.all([
      ...[...this.#networks].map((name) => attempt(() => docker.removeNetwork(name))),
      ...[...this.#volumes].map((name) => attempt(() => docker.removeVolume(name))),
    ]);
    if (failed) await removeMatching(docker, filter);
  }

  #set(kind: 'container' | 'network' | 'volume'): Set<string> {
    if (kind === 'container') return this.#containers;
    return kind === 'network' ? this.#networks : this.#volumes;
  }
}
