import type { QueuedStage } from '../../core/queue.js';

interface Offer {
  expires: number;
  pipeline: string;
  repoId: number;
  buildId: number;
  /** The stage's build had no taken stage when offered: it counts against the repository's throttle. */
  startsBuild: boolean;
}

/**
 * The stages a StageQueue has offered to a request and not yet seen taken, each until it expires:
 * they are not offered again meanwhile, and they count, with the stages runners have taken, against
 * the pipeline's concurrency `limit` and the repository's `throttle`.
 */
export class Offers {
  readonly #offers = new Map<number, Offer>();

  get size(): number {
    return this.#offers.size;
  }

  has(stageId: number): boolean {
    return this.#offers.has(stageId);
  }

  /** Ends the offer of the stage; true when there was one. */
  delete(stageId: number): boolean {
    return this.#offers.delete(stageId);
  }

  /** Ends the offers that expired by `now`. */
  expire(now: number): void {
    for (const [id, offer] of this.#offers) if (offer.expires <= now) this.#offers.delete(id);
  }

  /**
   * Whether the stage must wait: its pipeline's concurrency limit is reached by taken and offered
   * stages, or it would start a build of its repository beyond the throttle (running builds plus
   * those started by offers, unless an offer already started this very build).
   */
  holds({ stage, repo, active, running }: QueuedStage): boolean {
    if (stage.limit > 0 && active + this.#offered(pipelineOf(stage)) >= stage.limit) return true;
    if (repo.throttle === 0 || running.thisBuild) return false;
    const starting = new Set<number>();
    for (const offer of this.#offers.values()) {
      if (offer.repoId === stage.repoId && offer.startsBuild) starting.add(offer.buildId);
    }
    return !starting.has(stage.buildId) && running.builds + starting.size >= repo.throttle;
  }

  /** Offers the stage until `expires`. */
  add({ stage, repo, running }: QueuedStage, expires: number): void {
    this.#offers.set(stage.id, {
      expires,
      pipeline: pipelineOf(stage),
      repoId: stage.repoId,
      buildId: stage.buildId,
      startsBuild: repo.throttle > 0 && !running.thisBuild,
    });
  }

  #offered(pipeline: string): number {
    let count = 0;
    for (const offer of this.#offers.values()) if (offer.pipeline === pipeline) count++;
    return count;
  }
}

function pipelineOf(stage: { repoId: number; name: string }): string {
  return `${stage.repoId}/${stage.name}`;
}
