import type { Logger } from 'pino';
import type { Build } from '../../core/build.js';
import type { BuildListener } from '../../core/events.js';
import type { GaugeRegistry } from '../../core/gauges.js';
import type { LiveLogs } from '../../core/live-logs.js';
import type { Repo } from '../../core/repo.js';
import type { ScmNetrc } from '../../core/scm.js';
import type { Store } from '../../core/store.js';
import type { ArtifactService } from '../artifacts/service.js';
import type { CacheService } from '../caches/service.js';
import type { IdTokenIssuer } from '../oidc/issuer.js';
import type { Leadership } from '../cluster/lease-keeper.js';
import type { BuildWatches } from '../queue/build-watches.js';
import type { ReaperSettings } from '../queue/reaper.js';
import type { StageQueue } from '../queue/stage-queue.js';

/** The server as steps see it (DRONE_SYSTEM_*): SVC_SERVER_PROTO, SVC_SERVER_HOST, svc's version. */
export interface RpcSystem {
  proto: string;
  host: string;
  version: string;
}

/** Time limits of the protocol; tests shorten them. */
export interface RpcTimeouts {
  /** How long `POST /rpc/v2/build/{id}/watch` waits before answering 204 (default 30 s). */
  watch?: number;
  /** A taken stage without heartbeat for this long is failed (default 40 s: four missed beats). */
  heartbeat?: number;
  /** How often the watchdog looks for such stages (default 10 s: a lost runner is noticed within 50 s). */
  watchdogInterval?: number;
}

/**
 * What the runner protocol needs, grouped. `queue` and `watches` are shared with the rest of the
 * server: the code that creates builds wakes `queue` (it is the QueueSignal), the code that cancels
 * builds notifies `watches`.
 */
export interface RpcDeps {
  readonly store: Store;
  readonly listener: BuildListener;
  readonly liveLogs: LiveLogs;
  /** SVC_RPC_SECRET: runners send it in X-SVC-Token (or Drone's X-Drone-Token). */
  readonly secret: string;
  /** SVC_RPC_SECRET_DISABLED: runners must present their own runner token. */
  readonly sharedSecretDisabled?: boolean;
  /** The in-process runner's own secret (SVC_RUNNER_LOCAL), accepted whatever the shared one's state. */
  readonly internalSecret?: string | undefined;
  readonly system: RpcSystem;
  /** Clone credentials for a build's repository, from the git provider; undefined when none are needed. */
  netrcFor(repo: Repo, build: Build): Promise<ScmNetrc | undefined>;
  readonly logger: Logger;
  /** Signs the OpenID Connect tokens steps ask for (`id_tokens:`); undefined: none are signed. */
  readonly idTokens?: Pick<IdTokenIssuer, 'forStage'> | undefined;
  readonly queue: StageQueue;
  readonly watches: BuildWatches;
  /** Steps' caches (docs/caches.md); undefined: the server keeps none and the routes are absent. */
  readonly caches?: Pick<CacheService, 'restore' | 'save' | 'writeRefusal'> | undefined;
  /** Steps' artifacts (docs/artifacts.md); undefined: the server keeps none and the routes are absent. */
  readonly artifacts?:
    Pick<ArtifactService, 'upload' | 'uploadReports' | 'list' | 'tarZst' | 'entries' | 'open'> | undefined;
  readonly timeouts?: RpcTimeouts | undefined;
  /** The reaper of zombie builds (SVC_CLEANUP_*); undefined when disabled. */
  readonly reaper?: ReaperSettings | undefined;
  /**
   * With several servers on one database, the lease that lets one of them run the heartbeat watchdog
   * and the reaper; undefined: this server runs them (one server).
   */
  readonly leader?: Leadership | undefined;
  /** Where the protocol's in-memory maps report their sizes (/metrics); none: not reported. */
  readonly gauges?: GaugeRegistry | undefined;
  /** Epoch milliseconds; tests pass a fake clock. */
  readonly now?: (() => number) | undefined;
}
