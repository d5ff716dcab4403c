import { posix } from 'node:path';
import type { V1Container, V1Volume, V1VolumeMount } from '@kubernetes/client-node';
import type { ExecSpec, ExecStep } from '../../core/engine.js';
import { devicePaths, STATUS_MOUNT } from './mount-points.js';

/**
 * Caches and artifacts (svc additions) on Kubernetes. A step's container cannot be reached once it
 * exited (restartPolicy Never), and before it starts it runs the placeholder, which has no `tar`:
 * so a pod whose stage moves files gets one more container, the files container, which runs the
 * clone image (it has `sh` and `tar`) for as long as the pod lives and mounts every volume the
 * steps share — the workspace, the pipeline's volumes, and the cache volumes below — under
 * FILES_ROOT. The engine moves files with `exec` into it. An absolute cache path that none of those
 * volumes holds (`/root/.npm`) becomes an `emptyDir` of its own, mounted there in the step: it hides
 * what the step's image has at that path, as a Docker volume would.
 */
export const FILES_CONTAINER = 'svc-files';
const FILES_ROOT = '/svc-files';
const WORKSPACE = `${FILES_ROOT}/w`;

/** Whether the stage moves step files: a step has a cache or artifacts, or the stage fetches artifacts. */
export function movesFiles(spec: ExecSpec): boolean {
  if ((spec.artifactsFrom ?? []).length > 0) return true;
  return spec.steps.some((step) => step.cache !== undefined || step.artifacts !== undefined);
}

/** Where one of a step's folders is in the files container. */
export interface Reach {
  /** Absolute, in the step's filesystem: a mount point. */
  step: string;
  /** The same folder in the files container. */
  files: string;
  readOnly: boolean;
  /**
   * A cache path's own volume: its folder always exists, so an empty one counts as nothing there
   * (the step made nothing to save), as a missing path does on other runners.
   */
  emptyIsNothing?: boolean;
}

/** A volume made for a step's absolute cache path. */
interface CacheVolume {
  name: string;
  path: string;
}

/** The folders of `step` that the files container reaches, the deepest first. */
export function stepReach(spec: ExecSpec, step: ExecStep, volumeName: (name: string) => string): Reach[] {
  const reach: Reach[] = [
    { step: clean(spec.workspace.base), files: WORKSPACE, readOnly: false },
    ...step.mounts.map((mount) => ({
      step: clean(mount.path),
      files: `${FILES_ROOT}/v/${volumeName(mount.name)}`,
      readOnly: mount.readOnly === true,
    })),
    ...cacheVolumes(spec, step).map((volume) => ({
      step: volume.path,
      files: `${FILES_ROOT}/c/${volume.name}`,
      readOnly: false,
      emptyIsNothing: true,
    })),
  ];
  return reach.sort((a, b) => b.step.length - a.step.length);
}

/** Where `path` (absolute, in the step) is in the files container; undefined when no volume holds it. */
export function reachOf(reach: readonly Reach[], path: string): (Reach & { path: string }) | undefined {
  const wanted = clean(path);
  const found = reach.find(
    (r) => wanted === r.step || wanted.startsWith(r.step === '/' ? '/' : `${r.step}/`),
  );
  if (found === undefined) return undefined;
  return { ...found, path: found.files + wanted.slice(found.step === '/' ? 0 : found.step.length) };
}

/**
 * The step's absolute cache paths that neither the workspace nor its mounts hold, each with the
 * emptyDir that holds it (a path under an earlier one's is held by that one).
 */
function cacheVolumes(spec: ExecSpec, step: ExecStep): CacheVolume[] {
  if (step.cache === undefined) return [];
  const index = spec.steps.findIndex((candidate) => candidate.id === step.id);
  // Also the status file's folder and devices: a second mount there would make the pod invalid (a
  // cache path under them stays unreachable, which the step's log then says).
  const held = [
    clean(spec.workspace.base),
    ...step.mounts.map((mount) => clean(mount.path)),
    STATUS_MOUNT,
    ...step.devices.map((device) => clean(devicePaths(device).container)),
  ];
  const volumes: CacheVolume[] = [];
  for (const written of step.cache.paths) {
    if (!written.startsWith('/')) continue;
    const path = clean(written);
    const inside = (folder: string) => path === folder || path.startsWith(`${folder}/`);
    if (held.some(inside) || volumes.some((volume) => inside(volume.path))) continue;
    // Pipeline volumes are `v-…`: these names cannot meet theirs.
    volumes.push({ name: `svc-cache-${index + 1}-${volumes.length}`, path });
  }
  return volumes;
}

/** Mounts of a step's cache volumes in its own container. */
export function cacheMounts(spec: ExecSpec, step: ExecStep): V1VolumeMount[] {
  return cacheVolumes(spec, step).map((volume) => ({
    name: volume.name,
    mountPath: volume.path,
  }));
}

/** The pod's volumes for the steps' cache paths. */
export function cacheVolumeList(spec: ExecSpec): V1Volume[] {
  return spec.steps.flatMap((step) =>
    cacheVolumes(spec, step).map((volume) => ({ name: volume.name, emptyDir: {} })),
  );
}

/**
 * The files container: the clone image waiting until the pod ends (SIGTERM ends it at once), with
 * every shared volume mounted under FILES_ROOT. It runs as the image's user (root in svc/git),
 * which `tar` needs to read and restore every step's files with their owners.
 */
export function filesContainer(
  spec: ExecSpec,
  image: string,
  workspaceVolume: string,
  volumeName: (name: string) => string,
): V1Container {
  const mounts: V1VolumeMount[] = [
    { name: workspaceVolume, mountPath: WORKSPACE },
    ...spec.volumes.map((volume) => ({
      name: volumeName(volume.name),
      mountPath: `${FILES_ROOT}/v/${volumeName(volume.name)}`,
    })),
    ...cacheVolumeList(spec).map((volume) => ({
      name: volume.name,
      mountPath: `${FILES_ROOT}/c/${volume.name}`,
    })),
  ];
  return {
    name: FILES_CONTAINER,
    image,
    imagePullPolicy: 'IfNotPresent',
    command: ['/bin/sh', '-c', "trap 'exit 0' TERM INT; while :; do sleep 3600 & wait $!; done"],
    volumeMounts: mounts,
  };
}

function clean(path: string): string {
  const normal = posix.normalize(path);
  return normal.length > 1 ? normal.replace(/\/+$/, '') : normal;
}
