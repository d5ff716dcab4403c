/**
 * Images the cluster runners' end-to-end tests need besides those `npm run images` always builds:
 * svc's own image (built from the current dist/ by scripts/images.sh, a no-op when it is up to date)
 * and a tiny plugin whose entrypoint prints its settings.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { networkInterfaces, tmpdir, type NetworkInterfaceInfo } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  gatewayFromContainer,
  gatewayFromInspect,
  GatewayNotFound,
  type BridgeInspect,
  type ContainerNetworkSettings,
} from './bridge-gateway.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const PLUGIN_IMAGE = 'svc-test/echo-plugin:1';

function docker(...args: string[]): string {
  return execFileSync('docker', args, {
    encoding: 'utf8',
    env: process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Builds svc/svc from dist/ (run `npm run build` first) unless the engine has it for these inputs. */
export function ensureSvcImage(): void {
  try {
    execFileSync('bash', [join(ROOT, 'scripts/images.sh'), '--only', 'svc/svc'], {
      encoding: 'utf8',
      env: process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 5 * 60_000,
    });
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string };
    throw new Error(`building svc/svc failed:\n${failed.stdout ?? ''}${failed.stderr ?? ''}`, {
      cause: error,
    });
  }
}

/** A plugin image (from local/busybox) printing `plugin says: $PLUGIN_MESSAGE`, as plugins read settings. */
export function ensurePluginImage(): void {
  try {
    docker('image', 'inspect', PLUGIN_IMAGE);
    return;
  } catch {
    // Built below.
  }
  const dir = mkdtempSync(join(tmpdir(), 'svc-plugin-image-'));
  const script = join(dir, 'echo-plugin');
  writeFileSync(script, '#!/bin/sh\necho "plugin says: $PLUGIN_MESSAGE"\n', { mode: 0o755 });
  const id = docker('create', 'local/busybox', 'true').trim();
  try {
    docker('cp', script, `${id}:/bin/echo-plugin`);
    docker('commit', '--change', 'ENTRYPOINT ["/bin/echo-plugin"]', '--change', 'CMD []', id, PLUGIN_IMAGE);
  } finally {
    docker('rm', '-f', id);
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The address of the default bridge's gateway: how containers there reach this machine. Looked for
 * as test/support/bridge-gateway.ts says (the inspect answer, the interface, the subnet, then a
 * container's settings); throws GatewayNotFound naming every attempt when none answers.
 */
export function bridgeGateway(network = 'bridge', sources: GatewaySources = ENGINE_SOURCES): string {
  const inspected = JSON.parse(sources.inspect(network)) as BridgeInspect[];
  const answer = gatewayFromInspect(inspected[0] ?? {}, sources.interfaces());
  if (answer.address !== undefined) return answer.address;
  const fromContainer = sources.container(network);
  if (typeof fromContainer === 'string') return fromContainer;
  throw new GatewayNotFound(network, [...answer.tried, fromContainer.tried]);
}

/** Where bridgeGateway reads: the engine of DOCKER_HOST and this machine, or a test's answers. */
export interface GatewaySources {
  /** `docker network inspect <network>`: a JSON array of one network. */
  inspect(network: string): string;
  interfaces(): NodeJS.Dict<NetworkInterfaceInfo[]>;
  container(network: string): string | { tried: string };
}

const ENGINE_SOURCES: GatewaySources = {
  inspect: (network) => docker('network', 'inspect', network),
  interfaces: networkInterfaces,
  container: (network) => containerGateway(network),
};

/** The gateway a container started on `network` was given (local/busybox, removed at once). */
export function containerGateway(network: string): string | { tried: string } {
  const attempt = `a local/busybox container's NetworkSettings on ${network}`;
  let id = '';
  try {
    id = docker(
      'run',
      '-d',
      '--network',
      network,
      '--label',
      'io.svc.test=gateway',
      'local/busybox',
      'sleep',
      '30',
    ).trim();
    const settings = JSON.parse(
      docker('inspect', '-f', '{{json .NetworkSettings}}', id),
    ) as ContainerNetworkSettings;
    return (
      gatewayFromContainer(settings, network) ?? {
        tried: `${attempt} (no Gateway in ${JSON.stringify(settings)})`,
      }
    );
  } catch (error) {
    const failed = error as { stderr?: string; message?: string };
    return { tried: `${attempt} (${(failed.stderr ?? failed.message ?? String(error)).trim()})` };
  } finally {
    if (id !== '') {
      try {
        docker('rm', '-f', id);
      } catch {
        // Gone already, or the engine failed: the answer above stands either way.
      }
    }
  }
}

/** Ids of the containers carrying `label` (`key=value`); running ones only unless `all`. */
export function labelledContainers(label: string, all = false): string[] {
  const args = ['ps', '-q', ...(all ? ['-a'] : []), '--filter', `label=${label}`];
  return docker(...args)
    .split('\n')
    .filter((id) => id !== '');
}

/**
 * Removes the containers and volumes carrying `label`: what svc could not clean itself because the
 * test took its controller away (a lost Nomad node kills the task that ran the stage). Tries for up
 * to 10 s: the engine may still be removing a container that holds a volume.
 */
export async function removeLabelled(label: string): Promise<void> {
  const quietly = (...args: string[]): void => {
    try {
      docker(...args);
    } catch {
      // Already being removed (the engine's own cleanup raced this one), or in use: next round.
    }
  };
  for (let round = 0; round < 20; round++) {
    const containers = labelledContainers(label, true);
    const volumes = docker('volume', 'ls', '-q', '--filter', `label=${label}`)
      .split('\n')
      .filter((name) => name !== '');
    if (containers.length + volumes.length === 0) return;
    for (const id of containers) quietly('rm', '-f', '-v', id);
    for (const volume of volumes) quietly('volume', 'rm', '-f', volume);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}
