import type { FastifyRequest } from 'fastify';
import { ForbiddenError } from '../../core/errors.js';
import type { GaugeSource } from '../../core/gauges.js';
import type { RunnerTokenStore } from '../../core/runner-token.js';
import type { StageStore } from '../../core/stage.js';
import type { StepStore } from '../../core/step.js';
import { RUNNER_HEADER } from './holder.js';

/** What telling token runners' stages apart needs. */
export interface TokenHeldDeps {
  readonly runnerTokens: Pick<RunnerTokenStore, 'findName'>;
  readonly stages: Pick<StageStore, 'find'>;
  readonly steps: Pick<StepStore, 'find'>;
}

/** The part of a stage request's filter that names the runner (the route parses the rest). */
interface FilterBody {
  readonly runner?: { readonly name?: unknown } | null;
}

/** Stage routes (`:id` is a stage) and step routes (`:id` is a step), as registered under /rpc/v2. */
/** `/stage/:id` and every route under it (heartbeat, caches, artifacts). */
const isStageRoute = (route: string): boolean => route === '/stage/:id' || route.startsWith('/stage/:id/');
const STEP_ROUTES = new Set(['/step/:id', '/step/:id/logs/batch', '/step/:id/logs/upload']);

/**
 * Keeps runners that authenticate with the shared secret off whatever a runner with its own token
 * holds: they may not name themselves as a token's runner (X-SVC-Runner, `?machine=`, the filter's
 * runner), nor read or write a stage such a runner holds, even naming nobody (Drone's runners are
 * not holder-checked otherwise). The shared secret is everyone's word; a token is a credential.
 * Names of tokens are never reused nor deleted, so a name once found to be a token's stays one.
 */
export class TokenHeldGuard implements GaugeSource {
  readonly #deps: TokenHeldDeps;
  readonly #known = new Set<string>();

  constructor(deps: TokenHeldDeps) {
    this.#deps = deps;
  }

  sizes(): Record<string, number> {
    return { token_runner_names: this.#known.size };
  }

  /** A preHandler for every runner route. */
  async check(request: FastifyRequest): Promise<void> {
    if (request.runnerToken !== null) return;
    const header = request.headers[RUNNER_HEADER];
    const query = (request.query ?? {}) as Record<string, unknown>;
    const filter = routeOf(request) === '/stage' ? (request.body as FilterBody | undefined) : undefined;
    for (const name of [header, query.machine, filter?.runner?.name]) {
      if (typeof name === 'string' && name !== '' && (await this.isTokenRunner(name)))
        throw refused(`the runner name "${name}" belongs to a runner with its own token`);
    }
    const holder = await this.#holderOf(request);
    if (holder !== undefined && holder !== '' && (await this.isTokenRunner(holder)))
      throw refused(`this stage is held by "${holder}", a runner with its own token`);
  }

  /** True when a runner token (valid or revoked) has this name. */
  async isTokenRunner(name: string): Promise<boolean> {
    if (this.#known.has(name)) return true;
    if ((await this.#deps.runnerTokens.findName(name)) === undefined) return false;
    if (this.#known.size < 100_000) this.#known.add(name);
    return true;
  }

  async #holderOf(request: FastifyRequest): Promise<string | undefined> {
    const route = routeOf(request);
    const id = Number((request.params as { id?: string } | undefined)?.id);
    if (!Number.isSafeInteger(id)) return undefined;
    if (isStageRoute(route)) return (await this.#deps.stages.find(id))?.machine;
    if (!STEP_ROUTES.has(route)) return undefined;
    const step = await this.#deps.steps.find(id);
    return step === undefined ? undefined : (await this.#deps.stages.find(step.stageId))?.machine;
  }
}

/** The route's pattern under the protocol's prefix (`/rpc/v2`). */
function routeOf(request: FastifyRequest): string {
  return (request.routeOptions.url ?? '').replace(/^\/rpc\/v2(?=\/)/, '');
}

function refused(why: string): ForbiddenError {
  return new ForbiddenError(`${why}: only that token may act as it (the shared SVC_RPC_SECRET cannot)`);
}
