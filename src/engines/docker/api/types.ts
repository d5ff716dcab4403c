/**
 * The parts of the Docker Engine API (v1.41) that svc sends and reads. Field names are Docker's own;
 * only what the engine uses is declared, so a reader can see the whole surface at a glance.
 */

/** Docker list filters, e.g. `{ label: ['io.svc.run=abc'] }`. */
export type Filters = Record<string, string[]>;

export type Labels = Record<string, string>;

export interface Mount {
  Type: 'bind' | 'volume' | 'tmpfs';
  Source: string;
  Target: string;
  TmpfsOptions?: { SizeBytes?: number; Mode?: number };
}

export interface DeviceMapping {
  PathOnHost: string;
  PathInContainer: string;
  CgroupPermissions: string;
}

export interface HostConfig {
  NetworkMode?: string;
  Mounts?: Mount[];
  Binds?: string[] | undefined;
  Privileged?: boolean;
  Dns?: string[] | undefined;
  DnsSearch?: string[] | undefined;
  ExtraHosts?: string[] | undefined;
  Devices?: DeviceMapping[] | undefined;
  Memory?: number | undefined;
  MemorySwap?: number | undefined;
  ShmSize?: number | undefined;
  CpuPeriod?: number | undefined;
  CpuQuota?: number | undefined;
  CpuShares?: number | undefined;
  CpusetCpus?: string | undefined;
}

export interface EndpointSettings {
  Aliases?: string[];
}

/** The body of `POST /containers/create`, plus its `name` query parameter. */
export interface ContainerCreateOptions {
  name?: string;
  Image: string;
  Entrypoint?: string[] | undefined;
  Cmd?: string[] | undefined;
  Env?: string[];
  User?: string | undefined;
  WorkingDir?: string | undefined;
  Labels?: Labels;
  Tty?: boolean;
  AttachStdin?: boolean;
  AttachStdout?: boolean;
  AttachStderr?: boolean;
  HostConfig?: HostConfig;
  NetworkingConfig?: { EndpointsConfig: Record<string, EndpointSettings> } | undefined;
}

export interface ContainerState {
  Running: boolean;
  ExitCode: number;
  OOMKilled: boolean;
}

/** `GET /containers/{id}/json`, the fields svc reads. */
export interface ContainerInspect {
  Id: string;
  Name: string;
  State: ContainerState;
}

/** `POST /containers/{id}/wait`. */
export interface ContainerWaitResponse {
  StatusCode: number;
  Error?: { Message: string } | null;
}

/** An entry of `GET /containers/json`, `GET /networks` or `GET /volumes`: what cleanup needs. */
export interface ContainerSummary {
  Id: string;
  Labels: Labels | null;
}

export interface NetworkSummary {
  Id: string;
  Name: string;
  Labels: Labels | null;
}

/** `GET /networks/{id}`, the fields svc reads. */
export interface NetworkInspect {
  Name: string;
  IPAM?: { Config?: { Subnet?: string; Gateway?: string }[] | null } | null;
}

export interface VolumeSummary {
  Name: string;
  Labels: Labels | null;
}

/** `GET /version`, the fields svc reads. */
export interface VersionInfo {
  Version: string;
  ApiVersion: string;
  Os: string;
  Arch: string;
}

/** One event of the progress stream of `POST /images/create` (a pull). */
export interface PullEvent {
  id?: string;
  status?: string;
  progress?: string;
  error?: string;
}

/** Credentials for a registry, sent as the X-Registry-Auth header. */
export interface RegistryAuth {
  username: string;
  password: string;
  serveraddress: string;
}
