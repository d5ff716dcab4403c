import type { Logger } from 'pino';
import { loadSettings } from '../../config/index.js';
import { InvalidSettingsError } from '../../core/errors.js';
import { createDockerRunner } from '../runner/docker-runner.js';

type Env = Record<string, string | undefined>;

/** How long the local runner's stages may take to finish when the server stops, then to report. */
const STOP_GRACE_MS = 60_000;
const STOP_REPORT_MS = 15_000;

/**
 * SVC_RUNNER_LOCAL: a Docker runner in the server's own process, polling the server over loopback
 * with a secret only this process knows, with the Docker runner's defaults (and the DOCKER_* variables). Returns how to
 * stop it, or undefined when it cannot run (no Docker engine answers): the server then runs without
 * it, and the log says why.
 */
export async function startLocalRunner(
  secret: string,
  port: number,
  env: Env,
  logger: Logger,
): Promise<{ stop(): Promise<void> } | undefined> {
  const runnerEnv: Env = {
    SVC_RPC_HOST: `127.0.0.1:${port}`,
    SVC_RPC_PROTO: 'http',
    // The server's in-process secret (never the shared one): it works with SVC_RPC_SECRET_DISABLED.
    SVC_RPC_SECRET: secret,
    SVC_RUNNER_NAME: 'local',
  };
  let runnerSettings;
  try {
    ({ settings: runnerSettings } = loadSettings('docker', runnerEnv, { cwd: process.cwd() }));
  } catch (error) {
    if (!(error instanceof InvalidSettingsError)) throw error;
    logger.warn(`SVC_RUNNER_LOCAL: the local runner cannot start: ${error.message}`);
    return undefined;
  }
  const child = logger.child({ runner: 'local' });
  const created = await createDockerRunner(runnerSettings, env, child);
  if ('failure' in created) {
    logger.warn(`SVC_RUNNER_LOCAL: no local runner: ${created.failure}`);
    return undefined;
  }
  created.poller.start();
  logger.info(
    `SVC_RUNNER_LOCAL: runner "local" (${created.platform.os}/${created.platform.arch}, capacity ${created.capacity}) takes stages in this process`,
  );
  return {
    stop: () => created.poller.stop({ grace: STOP_GRACE_MS, report: STOP_REPORT_MS }),
  };
}
