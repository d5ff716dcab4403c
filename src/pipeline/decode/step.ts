import type { PullPolicy } from '../../core/engine.js';
import type { Diagnostics } from '../diagnostics.js';
import { needsImages, runsOnHost, type FailurePolicy, type PipelineType, type Step } from '../types.js';
import type { TreeNode } from '../yaml/tree.js';
import { readArtifacts } from './artifacts.js';
import { readCache } from './cache.js';
import { readConditions } from './conditions.js';
import { readIdTokens } from './id-tokens.js';
import { fieldsOf, type FieldSet, type Fields } from './fields.js';
import { readResources } from './resources.js';
import { readRetry, readStepTimeout } from './retry.js';
import { readEnvironment, readSettings } from './values.js';
import { readMounts } from './volumes.js';

const HOST_STEP_FIELDS = [
  'name',
  'commands',
  'environment',
  'when',
  'depends_on',
  'detach',
  'failure',
  'shell',
  'user',
  'working_dir',
  'id_tokens',
  'cache',
  'artifacts',
  'timeout',
  'retry',
] as const;

const CONTAINER_ONLY_FIELDS = [
  'image',
  'pull',
  'entrypoint',
  'command',
  'settings',
  'privileged',
  'volumes',
  'network_mode',
  'dns',
  'dns_search',
  'extra_hosts',
  'devices',
  'mem_limit',
  'memswap_limit',
  'shm_size',
  'cpu_period',
  'cpu_quota',
  'cpu_shares',
  'cpu_set',
  'resources',
  'group',
] as const;

const STEP_DOCS = 'see "Steps" in docs/pipelines.md';

function stepFields(type: PipelineType, what: string): FieldSet {
  if (!runsOnHost(type)) {
    return { what, known: [...HOST_STEP_FIELDS, ...CONTAINER_ONLY_FIELDS], docs: STEP_DOCS };
  }
  const containers = 'steps of docker, kubernetes and vm pipelines';
  return {
    what,
    known: HOST_STEP_FIELDS,
    elsewhere: new Map(CONTAINER_ONLY_FIELDS.map((field) => [field, containers])),
    docs: STEP_DOCS,
  };
}

/** One entry of `steps`, or of `services` when `service`; undefined when it is not a map at all. */
export function readStep(
  node: TreeNode,
  field: string,
  type: PipelineType,
  service: boolean,
  diagnostics: Diagnostics,
): Step | undefined {
  const what = `a step of a ${type} pipeline`;
  const fields = fieldsOf(node, field, stepFields(type, what), diagnostics);
  if (fields === undefined) return undefined;
  const name = fields.string('name', 'the step name, a string') ?? '';
  const commands = fields.strings('commands', 'shell commands');
  if (needsImages(type) && !fields.has('image')) {
    diagnostics.error(
      fields.at('image'),
      fields.field('image'),
      `is required in a ${type} pipeline; expected the image to run, e.g. image: golang:1.22`,
    );
  }
  const environment = readEnvironment(fields.node('environment'), fields.field('environment'), diagnostics);
  const detach = fields.bool('detach') ?? false;
  const step: Step = {
    name,
    field,
    position: fields.position,
    locations: fields.locations,
    image: fields.string('image', 'the image to run, e.g. image: golang:1.22') ?? '',
    pull: readPull(fields),
    commands,
    entrypoint: fields.strings('entrypoint', 'the entrypoint and its arguments'),
    command: fields.strings('command', 'the arguments of the entrypoint'),
    environment,
    settings: readSettings(fields.node('settings'), fields.field('settings'), diagnostics),
    when: readConditions(fields.node('when'), fields.field('when'), diagnostics),
    dependsOn: fields.strings('depends_on', 'names of steps'),
    detach,
    failure: readFailure(fields),
    privileged: fields.bool('privileged') ?? false,
    volumes: readMounts(fields, 'volumes'),
    user: fields.string('user', 'a user name or uid, e.g. user: "1000"') ?? '',
    group: String(fields.int('group', 'a group id, e.g. group: 1000') ?? ''),
    workingDir: fields.string('working_dir', 'a directory path') ?? '',
    shell: fields.string('shell', 'the shell that runs the commands, e.g. shell: /bin/bash') ?? '',
    networkMode: fields.string('network_mode', 'a Docker network mode, e.g. host') ?? '',
    dns: fields.strings('dns', 'DNS server addresses'),
    dnsSearch: fields.strings('dns_search', 'DNS search domains'),
    extraHosts: fields.strings('extra_hosts', 'host entries such as "somehost:162.242.195.82"'),
    devices: readMounts(fields, 'devices'),
    resources: readResources(fields),
    idTokens: readIdTokens(fields.node('id_tokens'), fields.field('id_tokens'), environment, diagnostics),
    cache: readStepCache(fields, service, detach),
    artifacts: readStepArtifacts(fields, name, service, detach),
    ...readAttempts(fields, service, detach),
  };
  return step;
}

/**
 * The step's `cache:`. A service or a detached step has none: it runs in the background with no end
 * after which to save, so the cache there is an error (its contents are still checked).
 */
function readStepCache(fields: Fields, service: boolean, detach: boolean): Step['cache'] {
  const cache = readCache(
    fields.node('cache'),
    fields.field('cache'),
    fields.at('cache'),
    fields.diagnostics,
  );
  if (!fields.has('cache') || (!service && !detach)) return cache;
  fields.diagnostics.error(
    fields.at('cache'),
    fields.field('cache'),
    service
      ? 'a service runs in the background for the whole pipeline, with no end after which to save a cache; expected cache on a step, e.g. the step that installs the dependencies'
      : 'a detached step (detach: true) has no end after which to save a cache; expected cache on a step without detach',
  );
  return undefined;
}

/**
 * The step's `artifacts:`. A service or a detached step has none: it has no end after which to
 * upload, so artifacts there are an error (their contents are still checked).
 */
function readStepArtifacts(
  fields: Fields,
  name: string,
  service: boolean,
  detach: boolean,
): Step['artifacts'] {
  const at = fields.at('artifacts');
  const artifacts = readArtifacts(
    fields.node('artifacts'),
    fields.field('artifacts'),
    at,
    name,
    fields.diagnostics,
  );
  if (!fields.has('artifacts') || (!service && !detach)) return artifacts;
  fields.diagnostics.error(
    at,
    fields.field('artifacts'),
    service
      ? 'a service runs in the background for the whole pipeline, with no end after which to upload artifacts; expected artifacts on the step that makes the files'
      : 'a detached step (detach: true) has no end after which to upload artifacts; expected artifacts on a step without detach',
  );
  return undefined;
}

/**
 * The step's `timeout:` and `retry:`. A service or a detached step has neither: it runs in the
 * background until the stage ends, with no end of its own to time or to fail and run again.
 */
function readAttempts(fields: Fields, service: boolean, detach: boolean): Pick<Step, 'timeout' | 'retry'> {
  const { diagnostics } = fields;
  const timeout = readStepTimeout(fields.node('timeout'), fields.field('timeout'), diagnostics);
  const retry = readRetry(fields.node('retry'), fields.field('retry'), diagnostics);
  if (!service && !detach) return { timeout, retry };
  const what = service
    ? 'a service runs in the background'
    : 'a detached step (detach: true) runs in the background';
  for (const key of ['timeout', 'retry'] as const) {
    if (!fields.has(key)) continue;
    diagnostics.error(
      fields.at(key),
      fields.field(key),
      `${what} until the stage ends, with no end of its own to ${key === 'timeout' ? 'time' : 'fail and run again'}; expected ${key} on a step that runs to its end`,
    );
  }
  return { timeout: 0, retry: undefined };
}

const PULL_EXPECTED = 'always, never or if-not-exists';

function readPull(fields: Fields): PullPolicy {
  const node = fields.node('pull');
  if (node === undefined) return 'default';
  if (node.kind === 'scalar' && node.value === true) {
    fields.diagnostics.warning(
      node.position,
      fields.field('pull'),
      `pull: true is the 0.8 spelling; it is read as always; expected ${PULL_EXPECTED}`,
    );
    return 'always';
  }
  const text = node.kind === 'scalar' ? node.text.toLowerCase() : '';
  if (text === 'always' || text === 'never' || text === 'if-not-exists') return text;
  fields.diagnostics.warning(
    node.position,
    fields.field('pull'),
    `unknown pull policy "${node.kind === 'scalar' ? node.text : node.kind}" is ignored (the image is pulled when missing); expected ${PULL_EXPECTED}`,
  );
  return 'default';
}

function readFailure(fields: Fields): FailurePolicy {
  const text = fields.string('failure', 'ignore');
  if (text === undefined || text === '' || text === 'fail') return 'fail';
  if (text === 'ignore') return 'ignore';
  // Drone's runners take all three spellings.
  if (['fast', 'fast-fail', 'fail-fast'].includes(text)) return 'fast';
  fields.diagnostics.warning(
    fields.node('failure')?.position ?? fields.at('failure'),
    fields.field('failure'),
    `unknown failure policy "${text}" is ignored; expected ignore (the step's failure does not fail the pipeline) or fast (it stops the stage at once)`,
  );
  return 'fail';
}
