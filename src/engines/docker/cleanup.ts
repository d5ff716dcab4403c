import type Docker from 'dockerode';
import { LABEL_RUN } from './resources.js';
import { statusOf } from './pull.js';

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
 * that matches `filter` — in that order, because a network or volume in use cannot go.
 * Resources that are already gone, or going, are not errors. Everything that can be removed is;
 * then the first real failure is thrown.
 */
export async function removeMatching(docker: Docker, filter: LabelFilter): Promise<Removed> {
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
  const filters = JSON.stringify(filter);

  const containers = await docker.listContainers({ all: true, filters });
  const removedContainers = sum(
    await Promise.all(
      containers.map((c) => attempt(() => docker.getContainer(c.Id).remove({ force: true, v: true }))),
    ),
  );
  const networks = await docker.listNetworks({ filters });
  const removedNetworks = sum(
    await Promise.all(networks.map((n) => attempt(() => docker.getNetwork(n.Id).remove()))),
  );
  const { Volumes: volumes } = await docker.listVolumes({ filters });
  const removedVolumes = sum(
    await Promise.all((volumes ?? []).map((v) => attempt(() => docker.getVolume(v.Name).remove()))),
  );
  if (failures.length > 0) throw failures[0];
  return { containers: removedContainers, networks: removedNetworks, volumes: removedVolumes };
}

/** The run ids found on resources that match `filter`. */
export async function runsMatching(docker: Docker, filter: LabelFilter): Promise<Set<string>> {
  const filters = JSON.stringify(filter);
  const [containers, networks, volumes] = await Promise.all([
    docker.listContainers({ all: true, filters }),
    docker.listNetworks({ filters }),
    docker.listVolumes({ filters }),
  ]);
  const labels = [
    ...containers.map((c) => c.Labels),
    ...networks.map((n) => n.Labels ?? {}),
    ...(volumes.Volumes ?? []).map((v) => (v.Labels as Record<string, string> | null) ?? {}),
  ];
  return new Set(labels.flatMap((l) => (l[LABEL_RUN] === undefined ? [] : [l[LABEL_RUN]])));
}
