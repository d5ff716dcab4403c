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
    const gateway = (bridge.IPAM?.Config ?? []).map(gatewayOf).find((address) => address !== undefined);
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

/**
 * An IPv4 network's gateway: the one it names, or else the first address of its subnet, which is
 * the one Docker gives its bridge when the configuration leaves the gateway out.
 */
export function gatewayOf(config: { Subnet?: string; Gateway?: string }): string | undefined {
  if (config.Gateway !== undefined && config.Gateway !== '' && !config.Gateway.includes(':'))
    return config.Gateway;
  const match = /^(\d+)\.(\d+)\.(\d+)\.(\d+)\/(\d+)$/.exec(config.Subnet ?? '');
  if (match === null) return undefined;
  const [a, b, c, d, bits] = match.slice(1).map(Number) as [number, number, number, number, number];
  if (bits > 30) return undefined;
  const base = (((a << 24) | (b << 16) | (c << 8) | d) >>> 0) & (bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0);
  const first = (base + 1) >>> 0;
  return [first >>> 24, (first >>> 16) & 255, (first >>> 8) & 255, first & 255].join('.');
}
