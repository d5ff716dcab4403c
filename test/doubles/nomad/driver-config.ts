/*
 * The docker driver's task `Config` decoded against its HCL spec (drivers/docker/config.go
 * `taskConfigSpec`) as the task runner does before starting a task: unknown keys, a missing `image`
 * and values of the wrong type are diagnostics, `${...}` references are evaluated (env.ts), and any
 * diagnostic fails the task with a `Failed Validation` event whose text is Nomad's
 * `failed to parse config: ` multierror.
 */
import { interpolateHcl } from './env.js';
import { multierror } from './util.js';

type Attr = 'string' | 'bool' | 'number' | 'list' | 'listmap' | 'map';
interface Block {
  list: boolean;
  attrs: Record<string, Attr>;
  blocks?: Record<string, Block>;
}

const ATTRS: Record<string, Attr> = {
  image: 'string',
  advertise_ipv6_address: 'bool',
  args: 'list',
  auth_soft_fail: 'bool',
  cap_add: 'list',
  cap_drop: 'list',
  cgroupns: 'string',
  command: 'string',
  cpuset_cpus: 'string',
  cpu_hard_limit: 'bool',
  cpu_cfs_period: 'number',
  container_exists_attempts: 'number',
  dns_search_domains: 'list',
  dns_options: 'list',
  dns_servers: 'list',
  entrypoint: 'list',
  extra_hosts: 'list',
  force_pull: 'bool',
  group_add: 'list',
  hostname: 'string',
  init: 'bool',
  interactive: 'bool',
  ipc_mode: 'string',
  ipv4_address: 'string',
  ipv6_address: 'string',
  isolation: 'string',
  labels: 'listmap',
  load: 'string',
  mac_address: 'string',
  memory_hard_limit: 'number',
  network_aliases: 'list',
  network_mode: 'string',
  oom_score_adj: 'number',
  runtime: 'string',
  pids_limit: 'number',
  pid_mode: 'string',
  ports: 'list',
  port_map: 'listmap',
  privileged: 'bool',
  image_pull_timeout: 'string',
  readonly_rootfs: 'bool',
  security_opt: 'list',
  shm_size: 'number',
  storage_opt: 'map',
  sysctl: 'listmap',
  tty: 'bool',
  ulimit: 'listmap',
  uts_mode: 'string',
  userns_mode: 'string',
  volumes: 'list',
  volume_driver: 'string',
  work_dir: 'string',
};

const mountBlock: Block = {
  list: true,
  attrs: { type: 'string', target: 'string', source: 'string', readonly: 'bool' },
  blocks: {
    bind_options: { list: false, attrs: { propagation: 'string' } },
    tmpfs_options: { list: false, attrs: { size: 'number', mode: 'number' } },
    volume_options: {
      list: false,
      attrs: { no_copy: 'bool', labels: 'listmap' },
      blocks: { driver_config: { list: false, attrs: { name: 'string', options: 'listmap' } } },
    },
  },
};

const BLOCKS: Record<string, Block> = {
  auth: {
    list: false,
    attrs: { username: 'string', password: 'string', email: 'string', server_address: 'string' },
  },
  devices: {
    list: true,
    attrs: { host_path: 'string', container_path: 'string', cgroup_permissions: 'string' },
  },
  healthchecks: { list: false, attrs: { disable: 'bool' } },
  logging: { list: false, attrs: { type: 'string', driver: 'string', config: 'listmap' } },
  mount: mountBlock,
  mounts: mountBlock,
};

/** The decoded config: attribute values converted, blocks as objects (lists for block lists). */
export type DockerConfig = Record<string, unknown> & { image: string };

/** Keys the double decodes but does not act on (recorded as unmodelled when used). */
export const UNMODELLED_KEYS = new Set([
  'advertise_ipv6_address',
  'auth_soft_fail',
  'cgroupns',
  'cpuset_cpus',
]);
for (const key of [
  'container_exists_attempts',
  'healthchecks',
  'ipv4_address',
  'ipv6_address',
  'load',
  'logging',
]) {
  UNMODELLED_KEYS.add(key);
}
for (const key of [
  'mac_address',
  'ports',
  'port_map',
  'volume_driver',
  'image_pull_timeout',
  'storage_opt',
]) {
  UNMODELLED_KEYS.add(key);
}

/** Decodes `config`; on failure returns Nomad's validation error text. */
export function decodeDockerConfig(
  config: Record<string, unknown>,
  env: Record<string, string>,
  attributes: Record<string, string>,
): { config: DockerConfig } | { error: string } {
  const diagnostics: string[] = [];
  const decoded = decodeBody(
    config,
    { list: false, attrs: ATTRS, blocks: BLOCKS },
    diagnostics,
    env,
    attributes,
  );
  if (decoded.image === undefined && !diagnostics.some((d) => d.includes('"image"'))) {
    diagnostics.push(
      'Missing required argument: The argument "image" is required, but no definition was found.',
    );
  }
  if (decoded.cpu_cfs_period === undefined) decoded.cpu_cfs_period = 100000;
  if (diagnostics.length > 0) return { error: multierror(['failed to parse config: ', ...diagnostics]) };
  return { config: decoded as DockerConfig };
}

function decodeBody(
  body: Record<string, unknown>,
  spec: Block,
  diagnostics: string[],
  env: Record<string, string>,
  attributes: Record<string, string>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    const attr = spec.attrs[key];
    const block = spec.blocks?.[key];
    if (attr !== undefined) {
      const converted = convert(value, attr, (text) => {
        const result = interpolateHcl(text, env, attributes);
        if ('error' in result) diagnostics.push(result.error);
        return 'value' in result ? result.value : text;
      });
      if (converted === undefined) {
        diagnostics.push(
          `Incorrect attribute value type: Inappropriate value for attribute ${JSON.stringify(key)}: ${REQUIRED[attr]} required.`,
        );
      } else out[key] = converted;
    } else if (block !== undefined) {
      const items = Array.isArray(value) ? value : [value];
      const decoded = items.map((item: unknown) => {
        if (typeof item === 'object' && item !== null && !Array.isArray(item)) {
          return decodeBody(item as Record<string, unknown>, block, diagnostics, env, attributes);
        }
        diagnostics.push(
          'Incorrect JSON value type: A JSON object is required here, setting the arguments for this block.',
        );
        return {};
      });
      out[key] = block.list ? decoded : decoded[0];
    } else {
      diagnostics.push(`Invalid label: No argument or block type is named ${JSON.stringify(key)}.`);
    }
  }
  return out;
}

const REQUIRED: Record<Attr, string> = {
  string: 'string',
  bool: 'bool',
  number: 'number',
  list: 'list of string',
  listmap: 'list of map of string',
  map: 'map of string',
};

/** cty's conversions: numbers and bools become strings, "true"/"false" and numeric strings convert back. */
function convert(value: unknown, attr: Attr, text: (s: string) => string): unknown {
  const asString = (item: unknown): string | undefined => {
    if (typeof item === 'string') return text(item);
    if (typeof item === 'number' || typeof item === 'boolean') return String(item);
    return undefined;
  };
  const asStringMap = (item: unknown): Record<string, string> | undefined => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) return undefined;
    const entries = Object.entries(item).map(([k, v]) => [k, asString(v)] as const);
    return entries.every(([, v]) => v !== undefined)
      ? (Object.fromEntries(entries) as Record<string, string>)
      : undefined;
  };
  switch (attr) {
    case 'string':
      return asString(value);
    case 'bool':
      if (typeof value === 'boolean') return value;
      return value === 'true' ? true : value === 'false' ? false : undefined;
    case 'number':
      if (typeof value === 'number') return value;
      return typeof value === 'string' && value.trim() !== '' && !Number.isNaN(Number(value))
        ? Number(value)
        : undefined;
    case 'list': {
      if (!Array.isArray(value)) return undefined;
      const items = value.map(asString);
      return items.every((item) => item !== undefined) ? items : undefined;
    }
    case 'listmap': {
      if (!Array.isArray(value)) return undefined;
      const maps = value.map(asStringMap);
      // hclutils.MapStrStr: the list's maps merged into one.
      return maps.every((item) => item !== undefined) ? Object.assign({}, ...maps) : undefined;
    }
    case 'map':
      return asStringMap(value);
  }
}
