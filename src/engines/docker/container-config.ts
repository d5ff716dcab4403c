import type { ContainerCreateOptions, DeviceMapping, HostConfig, Mount } from './api/types.js';
import type { ExecSpec, ExecStep } from '../../core/engine.js';
import { InvalidInputError } from '../../core/errors.js';
import {
  containerName,
  DEFAULT_NETWORK,
  usesStageNetwork,
  LABEL_STEP,
  networkName,
  runLabels,
  tempVolume,
  workspaceVolume,
} from './resources.js';

/**
 * The Docker container of a step: the step's image, command, environment (secrets included) and
 * limits; the workspace volume at `spec.workspace.base`; the step's volumes; the stage network
 * with the step name as alias, unless the step sets its own network mode.
 */
export function containerConfig(spec: ExecSpec, step: ExecStep, owner: string): ContainerCreateOptions {
  const stageNetwork = usesStageNetwork(spec);
  const network = step.networkMode || (stageNetwork ? networkName(spec) : DEFAULT_NETWORK);
  const { mounts, binds } = volumesOf(spec, step);
  const hostConfig: HostConfig = {
    NetworkMode: network,
    Mounts: mounts,
    Binds: binds.length > 0 ? binds : undefined,
    Privileged: step.privileged,
    Dns: nonEmpty(step.dns),
    DnsSearch: nonEmpty(step.dnsSearch),
    ExtraHosts: nonEmpty(step.extraHosts),
    Devices: step.devices.length > 0 ? step.devices.map(device) : undefined,
    Memory: positive(step.memLimit),
    MemorySwap: positive(step.memSwapLimit),
    ShmSize: positive(step.shmSize),
    CpuPeriod: positive(step.cpuPeriod),
    CpuQuota: positive(step.cpuQuota),
    CpuShares: positive(step.cpuShares),
    CpusetCpus: step.cpuSet.length > 0 ? step.cpuSet.join(',') : undefined,
  };
  const env = { ...step.envs, ...Object.fromEntries(step.secrets.map((s) => [s.env, s.data])) };
  return {
    name: containerName(spec, step),
    Image: step.image,
    Entrypoint: nonEmpty(step.entrypoint),
    Cmd: nonEmpty(step.command),
    Env: Object.entries(env).map(([key, value]) => `${key}=${value}`),
    // A group without a user (`:1000`, kubernetes pipelines' `group:`) is nothing Docker takes.
    User: step.user === '' || step.user.startsWith(':') ? undefined : step.user,
    WorkingDir: step.workingDir || undefined,
    Labels: { ...runLabels(spec, owner), ...step.labels, [LABEL_STEP]: step.name },
    Tty: false,
    AttachStdin: false,
    AttachStdout: true,
    AttachStderr: true,
    HostConfig: hostConfig,
    // A container can join only one network at creation (API < 1.44); extra ones are connected later.
    NetworkingConfig:
      step.networkMode || !stageNetwork
        ? undefined
        : { EndpointsConfig: { [network]: { Aliases: [step.name] } } },
  };
}

/**
 * Mounts of a step: the workspace, then its own volumes. Host paths are binds, which create a
 * missing host directory as `docker run -v` does; temp volumes are Docker volumes or tmpfs.
 */
function volumesOf(spec: ExecSpec, step: ExecStep): { mounts: Mount[]; binds: string[] } {
  const { base, hostPath } = spec.workspace;
  const mounts: Mount[] = [
    hostPath === undefined
      ? { Type: 'volume', Source: workspaceVolume(spec), Target: base }
      : { Type: 'bind', Source: hostPath, Target: base },
  ];
  const binds: string[] = [];
  for (const mount of step.mounts) {
    const volume = spec.volumes.find((v) => v.name === mount.name);
    if (volume === undefined) {
      throw new InvalidInputError(
        `step "${step.name}" mounts volume "${mount.name}", which the stage does not define`,
      );
    }
    if (volume.kind === 'host') binds.push(`${volume.path}:${mount.path}${mount.readOnly ? ':ro' : ''}`);
    else if (volume.medium === 'memory') {
      // Size 0 leaves Docker's default (half the host's memory); mode 1777 as for /tmp.
      const options = { SizeBytes: Math.max(0, volume.sizeLimit), Mode: 0o1777 };
      mounts.push({ Type: 'tmpfs', Source: '', Target: mount.path, TmpfsOptions: options });
    } else mounts.push({ Type: 'volume', Source: tempVolume(spec, volume.name), Target: mount.path });
  }
  return { mounts, binds };
}

/** `/dev/x`, `/dev/x:/dev/y` or `/dev/x:/dev/y:rw`, as `docker run --device` takes them. */
function device(spec: string): DeviceMapping {
  const [host = spec, container = host, permissions = 'rwm'] = spec.split(':');
  return { PathOnHost: host, PathInContainer: container, CgroupPermissions: permissions };
}

function nonEmpty<T>(values: T[]): T[] | undefined {
  return values.length > 0 ? values : undefined;
}

function positive(value: number): number | undefined {
  return value > 0 ? value : undefined;
}
