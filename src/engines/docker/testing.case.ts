import { inCi, service } from '../../../test/support/services.js';
import type { DockerClient } from './api/client.js';
import { statusOf } from './api/errors.js';
import { dockerClient } from './client.js';
import type { LabelFilter } from './cleanup.js';

/** The Docker engine for a test suite, or `skip` when it (or an image it needs) is missing outside CI. */
export interface DockerForTests {
  docker: DockerClient | undefined;
  skip: boolean;
}

/**
 * Connects to the engine DOCKER_HOST names and checks that `images` (built by `npm run images`)
 * are there. Outside CI a missing engine or image skips the suite and says so; with CI=true it
 * throws, so CI cannot pass by skipping.
 */
export async function dockerForTests(images: string[]): Promise<DockerForTests> {
  const host = service('DOCKER_HOST', 'Docker engine');
  if (host.skip) return { docker: undefined, skip: true };
  const docker = dockerClient({ host: host.value });
  const missing: string[] = [];
  for (const image of images) {
    try {
      await docker.inspectImage(image);
    } catch (error) {
      // Only a 404 says the image is missing; anything else (an engine that refuses this API
      // version, a socket nobody answers) would be sent to `npm run images` for nothing.
      if (statusOf(error) !== 404) {
        const message = `the Docker engine at ${host.value} did not answer for image ${image}: ${(error as Error).message}`;
        if (inCi) throw new Error(`required in CI: ${message}`, { cause: error });
        console.warn(`skipping Docker engine tests: ${message}`);
        return { docker: undefined, skip: true };
      }
      missing.push(image);
    }
  }
  if (missing.length === 0) return { docker, skip: false };
  const message = `image ${missing.join(', ')} missing from the Docker engine at ${host.value} (build it with: npm run images)`;
  if (inCi) throw new Error(`required in CI: ${message}`);
  console.warn(`skipping Docker engine tests: ${message}`);
  return { docker: undefined, skip: true };
}

/** Counts the containers, networks and volumes matching `filter` (0 after a clean destroy). */
export async function countMatching(
  docker: DockerClient,
  filter: LabelFilter,
): Promise<{ containers: number; networks: number; volumes: number }> {
  const [containers, networks, volumes] = await Promise.all([
    docker.listContainers(filter),
    docker.listNetworks(filter),
    docker.listVolumes(filter),
  ]);
  return { containers: containers.length, networks: networks.length, volumes: volumes.length };
}
