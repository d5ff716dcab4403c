import type { ExecMount, ExecVolume } from '../../core/engine.js';
import type { Pipeline, Step } from '../types.js';

/** A host path the runner mounts in every step (SVC_RUNNER_VOLUMES, `host:container`). */
export interface RunnerVolume {
  readonly name: string;
  readonly host: string;
  readonly container: string;
  readonly readOnly: boolean;
}

/** Reads the runner's `host:container[:ro|:rw]` volumes; entries that are not of that form are reported. */
export function runnerVolumes(entries: readonly string[]): { volumes: RunnerVolume[]; problems: string[] } {
  const volumes: RunnerVolume[] = [];
  const problems: string[] = [];
  entries.forEach((entry, index) => {
    const parts = entry.split(':');
    const mode = parts.length === 3 ? parts[2] : undefined;
    const [host = '', container = ''] = parts;
    if (
      parts.length < 2 ||
      parts.length > 3 ||
      host === '' ||
      container === '' ||
      (mode !== undefined && mode !== 'ro' && mode !== 'rw')
    ) {
      problems.push(
        `runner volume "${entry}" is not of the form /host/path:/container/path[:ro]; it is not mounted`,
      );
      return;
    }
    volumes.push({ name: `_runner_volume_${index}`, host, container, readOnly: mode === 'ro' });
  });
  return { volumes, problems };
}

/**
 * The volumes of the run: the pipeline's and the runner's host volumes. The workspace is not one of
 * them: every engine mounts it itself at `spec.workspace.base` (see ExecSpec).
 */
export function specVolumes(pipeline: Pipeline, runner: readonly RunnerVolume[]): ExecVolume[] {
  const volumes: ExecVolume[] = [];
  for (const volume of pipeline.volumes) {
    if (volume.kind === 'host') volumes.push({ kind: 'host', name: volume.name, path: volume.path });
    else
      volumes.push({ kind: 'temp', name: volume.name, medium: volume.medium, sizeLimit: volume.sizeLimit });
  }
  for (const volume of runner) volumes.push({ kind: 'host', name: volume.name, path: volume.host });
  return volumes;
}

/** Where a step mounts volumes: its own, then the runner's (the engine adds the workspace). */
export function stepMounts(step: Step | undefined, runner: readonly RunnerVolume[]): ExecMount[] {
  return [
    ...(step?.volumes ?? []).map((mount) => ({ name: mount.name, path: mount.path })),
    ...runner.map((volume) => ({
      name: volume.name,
      path: volume.container,
      ...(volume.readOnly ? { readOnly: true } : {}),
    })),
  ];
}

/** A step's devices as `host:container`: its own (host volumes of the pipeline) and the runner's. */
export function stepDevices(step: Step | undefined, pipeline: Pipeline, runner: readonly string[]): string[] {
  const own = (step?.devices ?? []).flatMap((device) => {
    const volume = pipeline.volumes.find((candidate) => candidate.name === device.name);
    return volume?.kind === 'host' ? [`${volume.path}:${device.path}`] : [];
  });
  return [...own, ...runner];
}
