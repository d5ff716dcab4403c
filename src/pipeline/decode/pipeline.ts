import type { Diagnostics } from '../diagnostics.js';
import { PIPELINE_TYPES, type Pipeline, type PipelineType, type Step } from '../types.js';
import type { TreeNode } from '../yaml/tree.js';
import { readArtifactsFrom } from './artifacts.js';
import { readConditions } from './conditions.js';
import type { Fields, FieldSet } from './fields.js';
import { readKubernetes, readServer } from './kubernetes.js';
import { child } from './read.js';
import { readStep } from './step.js';
import { readEnvironment } from './values.js';
import { readVolumes } from './volumes.js';

const COMMON = [
  'kind',
  'type',
  'name',
  'version',
  'platform',
  'node',
  'workspace',
  'clone',
  'concurrency',
  'environment',
  'depends_on',
  'trigger',
  'steps',
  'artifacts',
  'matrix',
] as const;
const CONTAINERS = ['services', 'volumes', 'image_pull_secrets'] as const;
const KUBERNETES = [
  'metadata',
  'node_selector',
  'tolerations',
  'service_account_name',
  'service_account',
  'host_aliases',
  'dns_config',
] as const;

const EXTRA: Readonly<Record<PipelineType, readonly string[]>> = {
  docker: CONTAINERS,
  kubernetes: [...CONTAINERS, ...KUBERNETES],
  vm: [...CONTAINERS, 'pool'],
  ssh: ['server'],
  exec: [],
  macstadium: [],
};

/** For a field another type accepts: which types, for the warning. */
function elsewhere(type: PipelineType): Map<string, string> {
  const owners = new Map<string, PipelineType[]>();
  for (const other of PIPELINE_TYPES) {
    for (const field of EXTRA[other]) {
      if (!EXTRA[type].includes(field)) owners.set(field, [...(owners.get(field) ?? []), other]);
    }
  }
  return new Map([...owners].map(([field, types]) => [field, `${types.join(' and ')} pipelines`]));
}

function pipelineFields(type: PipelineType): FieldSet {
  return {
    what: `a ${type} pipeline`,
    known: [...COMMON, ...EXTRA[type]],
    elsewhere: elsewhere(type),
    docs: 'see docs/pipelines.md',
  };
}

const PLATFORM_SET = { what: 'the platform section', known: ['os', 'arch', 'variant', 'version'] };
const WORKSPACE_SET = { what: 'the workspace section', known: ['base', 'path'] };
const CLONE_SET = {
  what: 'the clone section',
  known: ['disable', 'depth', 'retries', 'skip_verify', 'trace'],
};
const CONCURRENCY_SET = { what: 'the concurrency section', known: ['limit'] };
const POOL_SET = { what: 'the pool section', known: ['use'] };

/** The type of a pipeline document (`docker` when absent); an unknown type is an error and reads as docker. */
export function readPipelineType(fields: Fields): PipelineType {
  const type = fields.string('type', `a pipeline type: ${PIPELINE_TYPES.join(', ')}`);
  if (type === undefined) return 'docker';
  const known = PIPELINE_TYPES.find((candidate) => candidate === type);
  if (known !== undefined) return known;
  fields.diagnostics.error(
    fields.node('type')?.position ?? fields.at('type'),
    fields.field('type'),
    `unknown pipeline type "${type}"; expected one of ${PIPELINE_TYPES.join(', ')} (svc has no runner for other types)`,
  );
  return 'docker';
}

/** A `kind: pipeline` document, from its top-level fields. */
export function readPipeline(fields: Fields, diagnostics: Diagnostics): Pipeline {
  const type = readPipelineType(fields);
  fields.expect(pipelineFields(type));
  const platform = fields.section('platform', PLATFORM_SET);
  const workspace = fields.section('workspace', WORKSPACE_SET);
  // Lint reports platform and workspace values where they are written.
  for (const [section, key] of [
    [platform, 'os'],
    [platform, 'arch'],
    [workspace, 'base'],
  ] as const) {
    const node = section?.node(key);
    if (node !== undefined && section !== undefined) fields.note(`${section.path}.${key}`, node.position);
  }
  const clone = fields.section('clone', CLONE_SET);
  const concurrency = fields.section('concurrency', CONCURRENCY_SET);
  return {
    kind: 'pipeline',
    type,
    name: fields.string('name', 'the pipeline name, a string') ?? 'default',
    position: fields.position,
    locations: fields.locations,
    platform: {
      os: platform?.string('os', 'an operating system, e.g. linux') ?? '',
      arch: platform?.string('arch', 'an architecture, e.g. amd64 or arm64') ?? '',
      variant: platform?.string('variant', 'an architecture variant, e.g. v7') ?? '',
      version: platform?.string('version', 'an operating system version, e.g. 1809') ?? '',
    },
    node: fields.stringMap('node', 'a map of runner labels, e.g. instance: fast'),
    workspace: {
      base: workspace?.string('base', 'an absolute directory, e.g. /go') ?? '',
      path: workspace?.string('path', 'a directory below the base, e.g. src/github.com/octocat/hello') ?? '',
    },
    clone: {
      disable: clone?.bool('disable') ?? false,
      depth: clone?.int('depth', 'a number of commits, 0 or more (0 clones the whole history)') ?? 0,
      retries: clone?.int('retries', 'a number of retries, 0 or more') ?? 0,
      skipVerify: clone?.bool('skip_verify') ?? false,
      trace: clone?.bool('trace') ?? false,
    },
    concurrency: {
      limit: concurrency?.int('limit', 'a number of builds, 0 or more (0 means no limit)') ?? 0,
    },
    ...readEnvironmentOrDeployment(fields, diagnostics),
    imagePullSecrets: fields.strings('image_pull_secrets', 'names of secrets'),
    dependsOn: fields.strings('depends_on', 'names of pipelines'),
    artifactsFrom: readArtifactsFrom(fields),
    trigger: readConditions(fields.node('trigger'), fields.field('trigger'), diagnostics),
    steps: readSteps(fields, 'steps', type, diagnostics),
    services: readSteps(fields, 'services', type, diagnostics),
    volumes: readVolumes(fields.node('volumes'), fields.field('volumes'), diagnostics),
    kubernetes: readKubernetes(fields),
    server: readServer(fields),
    pool: fields.section('pool', POOL_SET)?.string('use', 'the name of a machine pool') ?? '',
  };
}

function readSteps(
  fields: Fields,
  key: 'steps' | 'services',
  type: PipelineType,
  diagnostics: Diagnostics,
): Step[] {
  const node: TreeNode | undefined = fields.node(key);
  if (key === 'steps' && (node === undefined || (node.kind === 'seq' && node.items.length === 0))) {
    diagnostics.warning(
      fields.at('steps'),
      'steps',
      'the pipeline has no steps; expected a list of steps, e.g. - name: build',
    );
  }
  if (node === undefined) return [];
  if (node.kind !== 'seq') {
    const legacy =
      node.kind === 'map'
        ? '; a map of steps keyed by name is the 0.8 format: write "- name: <key>" items instead'
        : '';
    diagnostics.error(
      node.position,
      fields.field(key),
      `expected a list of ${key}, each starting with "- name: …"${legacy}`,
    );
    return [];
  }
  return node.items.flatMap((item, index) => {
    const step = readStep(item, child(fields.field(key), index), type, key === 'services', diagnostics);
    return step === undefined ? [] : [step];
  });
}

/** An environment's name, as the repository settings accept it. */
const DEPLOYMENT_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;

/**
 * A pipeline's `environment`: a map of variables (Drone's), or one word naming the deployment
 * environment the pipeline deploys to (svc's addition, issue 35).
 */
function readEnvironmentOrDeployment(
  fields: Fields,
  diagnostics: Diagnostics,
): Pick<Pipeline, 'environment' | 'deployment'> {
  const node = fields.node('environment');
  if (node?.kind !== 'scalar' || typeof node.value !== 'string' || node.value === '')
    return {
      environment: readEnvironment(node, fields.field('environment'), diagnostics),
      deployment: '',
    };
  if (!DEPLOYMENT_NAME.test(node.value)) {
    diagnostics.error(
      node.position,
      fields.field('environment'),
      `"${node.value}" is not an environment name; expected a deployment environment such as production (letters, digits, _ - .) or a map of variables`,
    );
  }
  return { environment: {}, deployment: node.value };
}
