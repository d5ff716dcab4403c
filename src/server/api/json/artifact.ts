import type { Artifact } from '../../../core/artifact.js';
import type { StageWithSteps } from '../../../core/stage.js';
import type { ZipEntry } from '../../../platform/zip/central-directory.js';

const seconds = (ms: number) => Math.floor(ms / 1000);

/** A stage's or step's place, as an artifact names it. */
interface Place {
  number: number;
  name: string;
}

/** Stage and step places of a build, by id, for artifactJson. */
export interface Places {
  readonly stages: ReadonlyMap<number, Place>;
  readonly steps: ReadonlyMap<number, Place>;
}

/** The places of a build's stages and steps (StageStore.listWithSteps). */
export function placesOf(stages: readonly StageWithSteps[]): Places {
  const place = (s: Place): Place => ({ number: s.number, name: s.name });
  return {
    stages: new Map(stages.map((stage) => [stage.id, place(stage)])),
    steps: new Map(stages.flatMap((stage) => stage.steps.map((step) => [step.id, place(step)] as const))),
  };
}

/** A stage or step the build no longer has: steps are never deleted, so this is not expected. */
const GONE: Place = { number: 0, name: '' };

/**
 * An artifact as the API shows it: its stage and step by number and name, times in epoch seconds
 * (`expires` 0: kept as long as its build), no blob name.
 */
export function artifactJson(artifact: Artifact, places: Places): Record<string, unknown> {
  return {
    id: artifact.id,
    stage: places.stages.get(artifact.stageId) ?? GONE,
    step: places.steps.get(artifact.stepId) ?? GONE,
    name: artifact.name,
    files: artifact.files,
    size: artifact.size,
    zip_size: artifact.zipSize,
    created: seconds(artifact.created),
    expires: seconds(artifact.expires),
    junit: artifact.junit,
  };
}

/** One file, folder or symbolic link of an artifact; a folder's path without its trailing `/`. */
export function artifactEntryJson(entry: ZipEntry): Record<string, unknown> {
  return {
    path: entry.name.replace(/\/$/, ''),
    size: entry.isDirectory ? 0 : entry.size,
    mode: entry.mode & 0o7777,
    type: entry.isDirectory ? 'directory' : entry.isSymlink ? 'symlink' : 'file',
  };
}
