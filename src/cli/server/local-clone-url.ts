import type { Logger } from 'pino';
import { dockerClient } from '../../engines/docker/client.js';

type Env = Record<string, string | undefined>;

/**
 * Where the local runner's containers reach this server: `localhost` inside a container is the
 * container itself, so the built-in provider's clone URLs name the Docker bridge's gateway (this
 * machine, as the containers see it) on the port the server listens on. Undefined, with the reason
 * logged, when the engine does not say.
 */
export async function bridgeCloneUrl(
  env: Env,
  proto: string,
  port: number,
  logger: Logger,
): Promise<string | undefined> {
  const docker = dockerClient({
    host: env.DOCKER_HOST,
    tlsVerify: env.DOCKER_TLS_VERIFY === '1',
    certPath: env.DOCKER_CERT_PATH,
  });
  try {
    const bridge = await docker.inspectNetwork('bridge');
    const gateway = bridge.IPAM?.Config?.find(
      (config) => config.Gateway !== undefined && !config.Gateway.includes(':'),
    )?.Gateway;
    if (gateway !== undefined) return `${proto}://${gateway}:${port}`;
    logger.warn(
      'SVC_SCML_ENABLED: the Docker bridge network names no gateway; set SVC_SCML_CLONE_URL so that steps can clone',
    );
  } catch (error) {
    logger.warn(
      { err: error },
      'SVC_SCML_ENABLED: cannot ask the Docker engine for its bridge gateway; set SVC_SCML_CLONE_URL so that steps can clone',
    );
  }
  return undefined;
}
