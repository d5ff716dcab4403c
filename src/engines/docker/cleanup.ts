import type { DockerClient } from './api/client.js';
import { statusOf } from './api/errors.js';
import { LABEL_RUN } from './resources.js';

/** How many resources a cleanup removed. */
export interface Removed {
  containers: number;
  networks: number;
  volumes: number;
}

/** Docker list filters: `{ label: ['key=value', …] }`. */
export type LabelFilter = { label: string[] };

/**
 * Removes every container (forcefully, with its anonymous volumes), then every network and volume
 * that matches `filter` — in that order, because a network or volume in use cannot go. Call it
 * when nothing more of those resources is being created.
 * Resources that are already gone, or going, are not errors. Everything that can be removed is;
 * then the first real failure is thrown.
 */
export async function removeMatching(docker: DockerClient, filter: LabelFilter): Promise<Removed> {
  const failures: unknown[] = [];
  const attempt = async (remove: () => Promise<unknown>): Promise<number> => {
    try {
      await remove();
      return 1;
    } catch (err) {
      // 404: already gone; 409: removal already in progress.
      if (statusOf(err) !== 404 && statusOf(err) !== 409) failures.push(err);
      return 0;
    }
  };
  const sum = (counts: number[]): number => counts.reduce((a, b) => a + b, 0);

  // Listed together (one round trip, not three): nothing of the run is created any more.
  const [containers, networks, volumes] = await Promise.all([
    docker.listContainers(filter),
    docker.listNetworks(filter),
    docker.listVolumes(filter),
  ]);
  const removedContainers = sum(
    await Promise.all(
      containers.map((c) => attempt(() => docker.removeContainer(c.Id, { force: true, volumes: true }))),
    ),
  );
  const [removedNetworks, removedVolumes] = await Promise.all([
    Promise.all(networks.map((n) => attempt(() => docker.removeNetwork(n.Id)))).then(sum),
    Promise.all(volumes.map((v) => attempt(() => docker.removeVolume(v.Name)))).then(sum),
  ]);
  if (failures.length > 0) throw failures[0];
  return { containers: removedContainers, networks: removedNetworks, volumes: removedVolumes };
}

/** The run ids found on resources that match `filter`. */
export async function runsMatching(docker: DockerClient, filter: LabelFilter): Promise<Set<string>> {
  const [containers, networks, volumes] = await Promise.all([
    docker.listContainers(filter),
    docker.listNetworks(filter),
    docker.listVolumes(filter),
  ]);
  const labels = [...containers, ...networks, ...volumes].map((r) => r.Labels ?? {});
  return new Set(labels.flatMap((l) => (l[LABEL_RUN] === undefined ? [] : [l[LABEL_RUN]])));
}
