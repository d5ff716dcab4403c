/*
 * Nomad's docker driver (drivers/docker/driver.go) on the double's Docker engine: the image is pulled
 * when missing (or always with `force_pull`, or for `latest` when the double is told to behave like
 * Nomad there), then the container is configured as `createContainerConfig` does — alloc, local and
 * secrets directories bound at /alloc, /local and /secrets, `volumes` and `mount`, Resources.CPU as
 * CpuShares and MemoryMB as the memory limit (`memory_hard_limit` making it the reservation) — and
 * named `<task>-<alloc id>`. Errors carry Nomad's wording and whether the restart policy may retry.
 */
import { isAbsolute, join, relative, resolve } from 'node:path';
import type { DockerClient } from '../../../src/engines/docker/client.js';
import type { ContainerCreateOptions, HostConfig, Mount } from '../../../src/engines/docker/api/types.js';
import { statusOf } from '../../../src/engines/docker/api/errors.js';
import type { DockerConfig } from './driver-config.js';
import { StartError } from './events.js';
import { TASK_PATHS } from './env.js';
import { errorText } from './util.js';

export interface DriverOptions {
  docker: DockerClient;
  /** The engine's unix socket: what the host path `/var/run/docker.sock` means for this client. */
  engineSocket: string | undefined;
  allowPrivileged: boolean;
  volumesEnabled: boolean;
  /** Pull `latest` (or untagged) images every time, as Nomad does, instead of using a local copy. */
  pullLatest: boolean;
  /** The node's total compute in MHz and its CPU cores (for `cpu_hard_limit`). */
  totalCompute: number;
  cores: number;
}

/** What the driver needs about the task. */
export interface TaskSetup {
  allocID: string;
  taskName: string;
  /** Host directories: the alloc dir's shared `alloc/` and the task's own directory. */
  sharedDir: string;
  taskDir: string;
  allocDir: string;
  env: Record<string, string>;
  user: string;
  cpu: number;
  memoryMB: number;
  labels: Record<string, string>;
}

/** Docker's answer to an API error, as the Go client prints it. */
const daemonError = (error: unknown): string =>
  statusOf(error) === undefined ? errorText(error) : `Error response from daemon: ${errorText(error)}`;

/** Makes the image available; returns its ID. `downloading` is called before a pull starts. */
export async function prepareImage(
  options: DriverOptions,
  config: DockerConfig,
  downloading: (ref: string) => void,
) {
  const image = config.image.replace(/^https:\/\//, '');
  if (image === '') throw new StartError('image name required for docker driver', false);
  const latest = !/@/.test(image) && (!/:[^/]+$/.test(image) || image.endsWith(':latest'));
  const mustPull = config.force_pull === true || (options.pullLatest && latest);
  if (!mustPull) {
    try {
      return (await options.docker.inspectImage(image)).Id;
    } catch (error) {
      if (statusOf(error) !== 404)
        throw new StartError(`Failed to pull \`${image}\`: ${daemonError(error)}`, true);
    }
  }
  downloading(image);
  const auth = config.auth as Record<string, string> | undefined;
  try {
    const pull = options.docker.pullImage(image, {
      auth:
        auth?.username !== undefined
          ? {
              username: auth.username,
              password: auth.password ?? '',
              serveraddress: auth.server_address ?? '',
            }
          : undefined,
    });
    for await (const event of pull) void event;
    return (await options.docker.inspectImage(image)).Id;
  } catch (error) {
    const message = daemonError(error);
    throw new StartError(
      `Failed to pull \`${image}\`: ${message}`,
      !/Error: image .+ not found/.test(message),
    );
  }
}

/** createContainerConfig: the container for the task, or a StartError as Nomad words it. */
export function containerOptions(
  options: DriverOptions,
  config: DockerConfig,
  task: TaskSetup,
  imageID: string,
) {
  const image = config.image.replace(/^https:\/\//, '');
  try {
    return buildOptions(options, config, task, image);
  } catch (error) {
    const text = `Failed to create container configuration for image ${JSON.stringify(image)} (${JSON.stringify(imageID)}): ${errorText(error)}`;
    throw new StartError(text, false);
  }
}

function buildOptions(
  options: DriverOptions,
  config: DockerConfig,
  task: TaskSetup,
  image: string,
): ContainerCreateOptions {
  const list = (key: string): string[] | undefined => config[key] as string[] | undefined;
  const text = (key: string): string | undefined => config[key] as string | undefined;
  const hardLimit = (config.memory_hard_limit as number | undefined) ?? 0;
  const memory = hardLimit > 0 ? hardLimit : task.memoryMB;
  if (hardLimit > 0 && task.memoryMB > hardLimit) {
    throw new Error(`task memory requirements exceed driver hard limit of ${hardLimit} MB`);
  }
  if (text('isolation') !== undefined && text('isolation') !== '') {
    throw new Error(
      `Failed to create container configuration, cannot use isolation mode "${text('isolation')}" on linux`,
    );
  }
  const host: HostConfig & Record<string, unknown> = {
    Binds: binds(options, config, task),
    Memory: memory * 1024 * 1024,
    MemorySwap: memory * 1024 * 1024,
    MemoryReservation: hardLimit > 0 ? task.memoryMB * 1024 * 1024 : 0,
    CpuShares: Math.max(2, task.cpu),
    NetworkMode: text('network_mode') || 'default',
  };
  if (config.cpu_hard_limit === true) {
    const period = config.cpu_cfs_period as number;
    if (period < 0 || period > 1_000_000) throw new Error('invalid value for cpu_cfs_period');
    host.CpuPeriod = period;
    host.CpuQuota = Math.floor((task.cpu / options.totalCompute) * period) * options.cores;
  }
  if (config.privileged === true && !options.allowPrivileged) {
    throw new Error('Docker privileged mode is disabled on this Nomad agent');
  }
  host.Privileged = config.privileged === true;
  const shm = config.shm_size as number | undefined;
  if (shm !== undefined && shm !== 0) host.ShmSize = shm;
  const devices = (config.devices as Record<string, string>[] | undefined) ?? [];
  host.Devices = devices.map((device) => {
    if (!device.host_path) throw new Error('host path must be set in configuration for devices');
    const permissions = device.cgroup_permissions || 'rwm';
    if (!/^[rwm]+$/.test(permissions))
      throw new Error(`invalid cgroup permission string: ${JSON.stringify(permissions)}`);
    return {
      PathOnHost: device.host_path,
      PathInContainer: device.container_path || device.host_path,
      CgroupPermissions: permissions,
    };
  });
  const mounts = [
    ...((config.mount as Record<string, unknown>[]) ?? []),
    ...((config.mounts as Record<string, unknown>[]) ?? []),
  ];
  host.Mounts = mounts.map((mount) => toMount(options, mount, task));
  host.Dns = list('dns_servers')?.filter((ip) => /^[\d.]+$|:/.test(ip));
  host.DnsSearch = list('dns_search_domains');
  host.DnsOptions = list('dns_options');
  host.ExtraHosts = list('extra_hosts');
  host.CapAdd = list('cap_add');
  host.CapDrop = list('cap_drop');
  host.SecurityOpt = list('security_opt');
  host.GroupAdd = list('group_add');
  host.Sysctls = config.sysctl;
  host.ReadonlyRootfs = config.readonly_rootfs === true;
  host.IpcMode = text('ipc_mode');
  host.PidMode = text('pid_mode');
  host.UTSMode = text('uts_mode');
  host.UsernsMode = text('userns_mode');
  host.Runtime = text('runtime');
  host.OomScoreAdj = config.oom_score_adj;
  if (config.init === true) host.Init = true;
  const pids = config.pids_limit as number | undefined;
  if (pids !== undefined && pids > 0) host.PidsLimit = pids;
  host.Ulimits = Object.entries((config.ulimit as Record<string, string> | undefined) ?? {}).map(
    ([Name, value]) => {
      const [soft = '0', hard = soft] = value.split(':');
      return { Name, Soft: Number(soft), Hard: Number(hard) };
    },
  );
  const command = text('command');
  let cmd = list('args')?.length ? list('args') : undefined;
  if (command !== undefined && command !== '') {
    if (command.trim() === '') throw new Error(`command empty: ${JSON.stringify(command)}`);
    if (command.trim() !== command)
      throw new Error(`command contains extra white space: ${JSON.stringify(command)}`);
    cmd = [command, ...(list('args') ?? [])];
  }
  const aliases = list('network_aliases');
  const create: ContainerCreateOptions & Record<string, unknown> = {
    name: `${task.taskName.replaceAll('/', '_')}-${task.allocID}`,
    Image: image,
    Entrypoint: list('entrypoint')?.length ? list('entrypoint') : undefined,
    Cmd: cmd,
    Env: Object.entries(task.env).map(([key, value]) => `${key}=${value}`),
    User: task.user || undefined,
    WorkingDir: text('work_dir') || undefined,
    Hostname: text('hostname'),
    Labels: { ...((config.labels as Record<string, string> | undefined) ?? {}), ...task.labels },
    Tty: config.tty === true,
    OpenStdin: config.interactive === true,
    HostConfig: host,
    NetworkingConfig: aliases?.length
      ? { EndpointsConfig: { [host.NetworkMode ?? 'default']: { Aliases: aliases } } }
      : undefined,
  };
  return create;
}

/** The built-in binds plus `volumes`: relative host paths are inside the task directory. */
function binds(options: DriverOptions, config: DockerConfig, task: TaskSetup): string[] {
  const out = [
    `${task.sharedDir}:${TASK_PATHS.alloc}`,
    `${join(task.taskDir, 'local')}:${TASK_PATHS.local}`,
    `${join(task.taskDir, 'secrets')}:${TASK_PATHS.secrets}`,
    `${join(task.sharedDir, 'logs')}:${TASK_PATHS.alloc}/logs:ro`,
  ];
  for (const spec of (config.volumes as string[] | undefined) ?? []) {
    const parts = spec.split(':');
    if (parts.length < 2)
      throw new Error(`invalid docker volume ${JSON.stringify(spec)}: not <src>:<destination> format`);
    const [source = '', target = '', mode] = parts;
    const host = hostPath(
      options,
      source,
      task,
      () => `volumes are not enabled; cannot mount host path: ${JSON.stringify(spec)}`,
    );
    out.push([host, target, ...(mode === undefined || mode === '' ? [] : [mode])].join(':'));
  }
  return out;
}

/** A host path as the driver resolves it, with the double's engine socket for `/var/run/docker.sock`. */
function hostPath(options: DriverOptions, source: string, task: TaskSetup, refused: () => string): string {
  const path = isAbsolute(source) ? resolve(source) : resolve(task.taskDir, source);
  const inside = !relative(task.allocDir, path).startsWith('..');
  if (!options.volumesEnabled && !inside) throw new Error(refused());
  if (path === '/var/run/docker.sock' && options.engineSocket !== undefined) return options.engineSocket;
  return path;
}

function toMount(
  options: DriverOptions,
  mount: Record<string, unknown>,
  task: TaskSetup,
): Mount & Record<string, unknown> {
  const type = (mount.type as string | undefined) ?? 'volume';
  const source = (mount.source as string | undefined) ?? '';
  const out: Mount & Record<string, unknown> = {
    Type: type as Mount['Type'],
    Source: source,
    Target: (mount.target as string | undefined) ?? '',
    ReadOnly: mount.readonly === true,
  };
  const block = (name: string) => (mount[name] as Record<string, unknown> | undefined) ?? {};
  switch (type) {
    case 'bind':
      out.Source = hostPath(
        options,
        source,
        task,
        () => `volumes are not enabled; cannot mount host path: ${JSON.stringify(out.Source)}`,
      );
      out.BindOptions = { Propagation: (block('bind_options').propagation as string | undefined) ?? '' };
      return out;
    case 'tmpfs':
      if (source !== '') throw new Error('invalid source, must be "" for tmpfs');
      out.TmpfsOptions = {
        SizeBytes: block('tmpfs_options').size as number,
        Mode: block('tmpfs_options').mode as number,
      };
      return out;
    case 'volume': {
      if (!options.volumesEnabled)
        throw new Error(`volumes are not enabled; cannot mount volume: ${JSON.stringify(source)}`);
      const volume = block('volume_options');
      const driver = (volume.driver_config as Record<string, unknown> | undefined) ?? {};
      out.VolumeOptions = {
        NoCopy: volume.no_copy === true,
        Labels: volume.labels,
        DriverConfig: { Name: driver.name, Options: driver.options },
      };
      return out;
    }
    default:
      throw new Error(`invalid mount type, must be "bind", "volume", "tmpfs": ${JSON.stringify(type)}`);
  }
}
