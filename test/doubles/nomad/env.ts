/*
 * A task's environment as Nomad's client builds it (client/taskenv): the standard NOMAD_* variables,
 * NOMAD_META_* from job, group and task meta, and the task's `Env` whose values are interpolated with
 * `${...}` (unknown references stay as written, helper/args.ReplaceEnv). The driver `Config` is
 * evaluated as HCL instead, where an unknown variable is an error (`Unknown variable: …`) that fails
 * the task's validation — only plain references (`${NOMAD_X}`, `${attr.x}`, `${env["X"]}`) are
 * modelled; `$${` escapes.
 */
import type { Allocation, NodeInfo, Task, TaskGroup } from './model.js';

/** Container paths of the alloc, task-local and secrets directories. */
export const TASK_PATHS = { alloc: '/alloc', local: '/local', secrets: '/secrets' };

/** `attr.*`, `meta.*` and `node.*` values usable in interpolation and constraints. */
export function nodeAttributes(node: NodeInfo, region: string): Record<string, string> {
  const values: Record<string, string> = {
    'node.region': region,
    'node.unique.id': node.ID,
    'node.unique.name': node.Name,
    'node.datacenter': node.Datacenter,
    'node.class': node.NodeClass,
    'node.pool': node.NodePool,
  };
  for (const [key, value] of Object.entries(node.Attributes)) values[`attr.${key}`] = value;
  for (const [key, value] of Object.entries(node.Meta)) values[`meta.${key}`] = value;
  return values;
}

const ENV_REFERENCE = /\$\{[a-zA-Z0-9_\-.]+\}/g;

/** helper/args.ReplaceEnv: `${name}` from the first map that has it, else left as is. */
export function replaceEnv(text: string, ...sources: Record<string, string>[]): string {
  return text.replace(ENV_REFERENCE, (reference) => {
    const name = reference.slice(2, -1);
    for (const source of sources) {
      const value = source[name];
      if (value !== undefined) return value;
    }
    return reference;
  });
}

/** The environment of `task` in `alloc` on `node` (taskenv.Builder.buildEnv). */
export function taskEnv(alloc: Allocation, group: TaskGroup, task: Task, attributes: Record<string, string>) {
  const job = alloc.Job;
  const env: Record<string, string> = {
    NOMAD_ALLOC_DIR: TASK_PATHS.alloc,
    NOMAD_TASK_DIR: TASK_PATHS.local,
    NOMAD_SECRETS_DIR: TASK_PATHS.secrets,
    NOMAD_MEMORY_LIMIT: String(task.Resources.MemoryMB),
    NOMAD_CPU_LIMIT: String(task.Resources.CPU),
    NOMAD_ALLOC_ID: alloc.ID,
    NOMAD_SHORT_ALLOC_ID: alloc.ID.slice(0, 8),
    NOMAD_ALLOC_NAME: alloc.Name,
    NOMAD_GROUP_NAME: group.Name,
    NOMAD_ALLOC_INDEX: String(alloc.index),
    NOMAD_TASK_NAME: task.Name,
    NOMAD_JOB_ID: job.ID,
    NOMAD_JOB_NAME: job.Name,
    NOMAD_DC: attributes['node.datacenter'] ?? '',
    NOMAD_NAMESPACE: job.Namespace,
    NOMAD_REGION: job.Region,
  };
  if (task.Resources.MemoryMaxMB > 0) env.NOMAD_MEMORY_MAX_LIMIT = String(task.Resources.MemoryMaxMB);
  if (job.ParentID !== '') env.NOMAD_JOB_PARENT_ID = job.ParentID;
  const meta = { ...(job.Meta ?? {}), ...(group.Meta ?? {}), ...(task.Meta ?? {}) };
  for (const [key, value] of Object.entries(meta)) {
    const interpolated = replaceEnv(value, attributes, env);
    env[cleanKey(`NOMAD_META_${key}`)] = interpolated;
    env[cleanKey(`NOMAD_META_${key.toUpperCase()}`)] = interpolated;
  }
  for (const [key, value] of Object.entries(task.Env ?? {})) env[key] = replaceEnv(value, attributes, env);
  return env;
}

/** helper.CleanEnvVar: characters not valid in a variable name become `_`. */
const cleanKey = (key: string): string => key.replace(/[^A-Za-z0-9_]/g, '_');

const HCL_REFERENCE = /(\$?)\$\{\s*([A-Za-z_][\w-]*)((?:\.[A-Za-z_][\w-]*|\[\s*"[^"]*"\s*\])*)\s*\}/g;

/**
 * Evaluates the `${...}` references of one driver-config string as HCL would with Nomad's variables;
 * returns the text, or the diagnostic of the first reference that does not resolve.
 */
export function interpolateHcl(
  text: string,
  env: Record<string, string>,
  attributes: Record<string, string>,
): { value: string } | { error: string } {
  let error: string | undefined;
  const value = text.replace(HCL_REFERENCE, (whole: string, escape: string, root: string, rest: string) => {
    if (escape === '$') return whole.slice(1);
    const steps = [...rest.matchAll(/\.([A-Za-z_][\w-]*)|\[\s*"([^"]*)"\s*\]/g)].map(
      (m) => m[1] ?? m[2] ?? '',
    );
    const found = resolve(root, steps, env, attributes);
    if (typeof found === 'string') return found;
    error ??= found.error;
    return whole;
  });
  // Any other `$${` is an escaped `${` too.
  return error === undefined ? { value: value.replaceAll('$${', '${') } : { error };
}

function resolve(
  root: string,
  steps: string[],
  env: Record<string, string>,
  attributes: Record<string, string>,
): string | { error: string } {
  if (root === 'env') {
    const key = steps[0];
    const value = key === undefined ? undefined : env[key];
    return (
      value ?? {
        error: `Invalid index: The given key does not identify an element in this collection value.`,
      }
    );
  }
  // node.attr.x and node.meta.x are aliases of attr.x and meta.x.
  const path = root === 'node' && (steps[0] === 'attr' || steps[0] === 'meta') ? steps : [root, ...steps];
  const key = path.join('.');
  const value = env[key] ?? attributes[key];
  if (value !== undefined) return value;
  const roots = new Set([...Object.keys(env), ...Object.keys(attributes)].map((name) => name.split('.')[0]));
  if (!roots.has(path[0] ?? ''))
    return { error: `Unknown variable: There is no variable named ${JSON.stringify(root)}.` };
  const missing = path.at(-1) ?? '';
  return {
    error: `Unsupported attribute: This object does not have an attribute named ${JSON.stringify(missing)}.`,
  };
}
