import type { Diagnostics, Position } from '../diagnostics.js';
import { runsOnHost, type Pipeline, type Step, type VolumeMount } from '../types.js';
import { checkDependencies } from './graph.js';
import { checkNames } from './names.js';

const CLONE_DISABLED = new Map([
  ['clone', 'this pipeline has clone: {disable: true}, so there is no clone step to depend on'],
]);

/** Volume names svc (like Drone) uses for itself. */
export const RESERVED_VOLUMES = ['workspace', '_workspace', '_docker_socket'];

/** Checks the steps and services of one pipeline: names, depends_on, images, volumes, suspicious combinations. */
export function checkSteps(pipeline: Pipeline, diagnostics: Diagnostics): void {
  const all = [...pipeline.services, ...pipeline.steps];
  // Clashes are reported at the later name, whichever of steps and services comes first in the file.
  const inFileOrder = [...all].sort(
    (a, b) => a.position.line - b.position.line || a.position.column - b.position.column,
  );
  const reserved = new Map<string, string>();
  if (!pipeline.clone.disable) {
    reserved.set(
      'clone',
      '"clone" is the name of the step that clones the repository; rename this step, or set clone: {disable: true} to clone yourself',
    );
  }
  checkNames(
    inFileOrder.map((step) => ({
      name: step.name,
      at: step.locations.name ?? step.position,
      field: step.field,
    })),
    'step',
    'across the steps and services of a pipeline',
    reserved,
    diagnostics,
  );
  checkDependencies(
    all.map((step) => ({
      name: step.name,
      dependsOn: step.dependsOn,
      field: step.field,
      position: (index: number) => step.locations[`depends_on[${index}]`] ?? step.position,
    })),
    pipeline.clone.disable ? [] : ['clone'],
    'step',
    diagnostics,
    pipeline.clone.disable ? CLONE_DISABLED : undefined,
  );
  const volumes = new Map(pipeline.volumes.map((volume) => [volume.name, volume]));
  for (const step of all) {
    checkStep(pipeline, step, diagnostics);
    checkMounts(step, 'volumes', step.volumes, volumes, diagnostics);
    checkMounts(step, 'devices', step.devices, volumes, diagnostics);
  }
}

function checkStep(pipeline: Pipeline, step: Step, diagnostics: Diagnostics): void {
  const field = step.field;
  const at = (key: string): Position => step.locations[key] ?? step.position;
  const hasCommands = step.commands.length > 0;
  if (hasCommands && Object.keys(step.settings).length > 0) {
    diagnostics.warning(
      at('settings'),
      `${field}.settings`,
      'settings and commands together: commands replace the image entrypoint, so a plugin would never read its settings; expected settings (a plugin) or commands (a script), not both',
    );
  }
  if (hasCommands && step.entrypoint.length > 0) {
    diagnostics.warning(
      at('entrypoint'),
      `${field}.entrypoint`,
      'is replaced by the shell that runs the commands; expected entrypoint without commands, or shell: to choose the shell',
    );
  }
  if (runsOnHost(pipeline.type) && !hasCommands) {
    diagnostics.warning(
      at('name'),
      field,
      `has no commands; a step of a ${pipeline.type} pipeline runs its commands`,
    );
  }
}

function checkMounts(
  step: Step,
  key: 'volumes' | 'devices',
  mounts: readonly VolumeMount[],
  volumes: ReadonlyMap<string, Pipeline['volumes'][number]>,
  diagnostics: Diagnostics,
): void {
  mounts.forEach((mount, index) => {
    const at = step.locations[`${key}[${index}]`] ?? step.position;
    const path = `${step.field}.${key}[${index}]`;
    const volume = volumes.get(mount.name);
    if (RESERVED_VOLUMES.includes(mount.name)) {
      diagnostics.error(
        at,
        `${path}.name`,
        `"${mount.name}" is reserved for the workspace; expected another volume name`,
      );
    } else if (volume === undefined) {
      const declared = [...volumes.keys()].filter((name) => name !== '' && !RESERVED_VOLUMES.includes(name));
      diagnostics.error(
        at,
        `${path}.name`,
        `volume "${mount.name}" is not declared; expected ${declared.length === 0 ? "a volume declared in the pipeline's volumes section" : `one of the pipeline's volumes: ${declared.join(', ')}`}`,
      );
    } else if (key === 'devices' && volume.kind !== 'host') {
      diagnostics.error(
        at,
        `${path}.name`,
        `volume "${mount.name}" is a temp volume; a device must name a host volume whose path is the device, e.g. host: {path: /dev/ttyUSB0}`,
      );
    }
    if (!mount.path.startsWith('/')) {
      diagnostics.error(
        at,
        `${path}.path`,
        `"${mount.path}" is not an absolute path; expected a path in the container such as /cache`,
      );
    }
  });
}
