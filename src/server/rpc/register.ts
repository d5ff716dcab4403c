import type { FastifyInstance } from 'fastify';
import { handleError } from '../http-errors.js';
import { Reaper } from '../queue/reaper.js';
import { RunnerRegistry } from '../queue/runner-registry.js';
import { HeartbeatWatchdog } from '../queue/watchdog.js';
import { StageScheduler } from '../queue/scheduler.js';
import { FailedAuthLimit, requireToken } from './auth.js';
import { HolderChecks } from './holder.js';
import { TokenHeldGuard } from './token-held.js';
import { RunnerBeats } from './runner-beats.js';
import type { RpcDeps } from './deps.js';
import { lenientJson } from './parse.js';
import { acceptRoute } from './routes/accept.js';
import { TestRecorder } from '../tests/recorder.js';
import { artifactRoutes } from './routes/artifacts.js';
import { cacheRoutes } from './routes/caches.js';
import { detailsRoute } from './routes/details.js';
import { heartbeatRoute } from './routes/heartbeat.js';
import { logBatchRoute } from './routes/log-batch.js';
import { logUploadRoute } from './routes/log-upload.js';
import { pingRoute } from './routes/ping.js';
import { requestRoute } from './routes/request.js';
import { stageUpdateRoute } from './routes/stage-update.js';
import { stepUpdateRoute } from './routes/step-update.js';
import { watchRoute } from './routes/watch.js';

/** Largest request a runner may send (a step's whole log at upload). */
const BODY_LIMIT = 64 * 1024 * 1024;

/**
 * Registers the runner protocol under /rpc/v2/ (docs/runners.md): every route needs the
 * SVC_RPC_SECRET in X-SVC-Token (or Drone's X-Drone-Token), else 401. Also runs, while the app is
 * up, the heartbeat watchdog that fails stages of silent runners, the reaper of zombie builds
 * (SVC_CLEANUP_*), and at start settles the builds
 * an earlier server left half-updated (StageScheduler.recover). When the app closes, waiting
 * long-polls are answered 204 at once so that closing does not wait for them.
 */
export function registerRpcRoutes(app: FastifyInstance, deps: RpcDeps): void {
  const now = deps.now ?? Date.now;
  const scheduler = new StageScheduler({ ...deps, now });
  const watchdog = new HeartbeatWatchdog({
    store: deps.store,
    scheduler,
    logger: deps.logger,
    timeout: deps.timeouts?.heartbeat,
    interval: deps.timeouts?.watchdogInterval,
    ...(deps.leader === undefined ? {} : { leader: deps.leader }),
    now,
  });
  const reaper =
    deps.reaper === undefined
      ? undefined
      : new Reaper({
          ...deps.reaper,
          store: deps.store,
          scheduler,
          logger: deps.logger,
          ...(deps.leader === undefined ? {} : { leader: deps.leader }),
          now,
        });
  const closing = new AbortController();
  app.addHook('onReady', (done) => {
    watchdog.start();
    reaper?.start();
    scheduler.recover().catch((error: unknown) => {
      deps.logger.error({ err: error }, 'settling the builds left unfinished by an earlier server failed');
    });
    done();
  });
  app.addHook('preClose', (done) => {
    closing.abort();
    done();
  });
  app.addHook('onClose', async () => {
    await watchdog.stop();
    await reaper?.stop();
  });

  void app.register(
    (rpc, _options, registered) => {
      rpc.setErrorHandler(handleError);
      rpc.removeAllContentTypeParsers();
      rpc.addContentTypeParser('*', { parseAs: 'string', bodyLimit: BODY_LIMIT }, lenientJson);
      rpc.decorateRequest('runnerToken', null);
      const failedAuth = new FailedAuthLimit({ now });
      rpc.addHook(
        'onRequest',
        requireToken({
          secret: deps.secret,
          sharedSecretDisabled: deps.sharedSecretDisabled ?? false,
          ...(deps.internalSecret === undefined ? {} : { internalSecret: deps.internalSecret }),
          tokens: deps.store.runnerTokens,
          limit: failedAuth,
          now,
        }),
      );
      const { store, liveLogs } = deps;
      const tokenHeld = new TokenHeldGuard(store);
      rpc.addHook('preHandler', (request) => tokenHeld.check(request));
      const holders = new HolderChecks(store);
      // Written at least eight times per watchdog timeout: a runner's heartbeat never looks late.
      const every = Math.min(5_000, (deps.timeouts?.heartbeat ?? 40_000) / 8);
      const beats = new RunnerBeats({ store, now, every });
      deps.gauges?.add('rpc_failed_auth', failedAuth);
      deps.gauges?.add('rpc_token_held', tokenHeld);
      deps.gauges?.add('rpc_runner_beats', beats);
      pingRoute(rpc);
      requestRoute(rpc, {
        queue: deps.queue,
        runners: new RunnerRegistry({ runners: store.runners, logger: deps.logger, now }),
        scheduler,
        closing: closing.signal,
        logger: deps.logger,
      });
      acceptRoute(rpc, { scheduler });
      detailsRoute(rpc, {
        store,
        netrcFor: (repo, build) => deps.netrcFor(repo, build),
        system: deps.system,
        idTokens: deps.idTokens,
      });
      stageUpdateRoute(rpc, { scheduler, beats });
      stepUpdateRoute(rpc, { scheduler });
      if (deps.caches !== undefined) cacheRoutes(rpc, { store, caches: deps.caches });
      if (deps.artifacts !== undefined)
        artifactRoutes(rpc, {
          store,
          artifacts: deps.artifacts,
          tests: new TestRecorder({ store, artifacts: deps.artifacts }),
        });
      heartbeatRoute(rpc, { store, beats });
      watchRoute(rpc, {
        store,
        watches: deps.watches,
        timeout: deps.timeouts?.watch ?? 30_000,
        closing: closing.signal,
        now,
      });
      logBatchRoute(rpc, { store, liveLogs, beats }, BODY_LIMIT);
      logUploadRoute(rpc, { store, liveLogs, holders, now });
      registered();
    },
    { prefix: '/rpc/v2' },
  );
}
