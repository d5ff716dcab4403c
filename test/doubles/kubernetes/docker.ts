/*
 * The Docker engine as the double's kubelet uses it: the repo's Docker Engine API client, plus the few
 * calls it does not offer (stop with a timeout, the full inspect, logs with options, volumes with driver
 * options), sent through the same transport. Every call is bounded except the ones that wait on a
 * container by nature (wait, followed logs); those take an abort signal.
 *
 * Everything the double creates carries LABEL_INSTANCE (this double) and LABEL_PID (its process): close()
 * removes by the first, a later start sweeps leftovers of dead processes by the second.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { DockerClient } from '../../../src/engines/docker/api/client.js';
import { statusOf } from '../../../src/engines/docker/api/errors.js';
import { Transport } from '../../../src/engines/docker/api/transport.js';
import type {
  ContainerCreateOptions,
  HostConfig,
  RegistryAuth,
} from '../../../src/engines/docker/api/types.js';
import { removeMatching } from '../../../src/engines/docker/cleanup.js';
import {
  gatewayFromContainer,
  gatewayFromInspect,
  GatewayNotFound,
  type BridgeInspect,
} from '../../support/bridge-gateway.js';

export const LABEL_INSTANCE = 'io.svc.kubernetes-double';
export const LABEL_PID = 'io.svc.kubernetes-double.pid';
export const LABEL_POD_UID = 'io.svc.kubernetes-double.pod-uid';
export const LABEL_ROLE = 'io.svc.kubernetes-double.role';

const CALL_TIMEOUT_MS = 30_000;

export interface MountSpec {
  Type: 'bind' | 'volume';
  Source: string;
  Target: string;
  ReadOnly?: boolean;
}

/** The create body: the client's options plus the fields a pod needs that it does not declare. */
export type CreateBody = Omit<ContainerCreateOptions, 'HostConfig' | 'Entrypoint' | 'Cmd'> & {
  Hostname?: string;
  Domainname?: string;
  Entrypoint?: string[] | null;
  Cmd?: string[] | null;
  HostConfig: Omit<HostConfig, 'Mounts'> & {
    Mounts?: MountSpec[];
    IpcMode?: string;
    NanoCpus?: number;
    DnsOptions?: string[];
  };
};

export interface ContainerDetails {
  Id: string;
  Image: string;
  State: {
    Status: string;
    Running: boolean;
    ExitCode: number;
    OOMKilled: boolean;
    Error: string;
    StartedAt: string;
    FinishedAt: string;
  };
  NetworkSettings: { IPAddress: string; Gateway: string; Networks?: Record<string, { Gateway?: string }> };
}

export interface ImageDetails {
  Id: string;
  RepoTags: string[] | null;
  RepoDigests: string[] | null;
}

export interface LogQuery {
  follow: boolean;
  timestamps: boolean;
  tail?: number;
  since?: number;
}

export class Engine {
  private readonly http: Transport;

  constructor(readonly client: DockerClient) {
    this.http = new Transport(client.endpoint);
  }

  async create(body: CreateBody): Promise<string> {
    const options = body as unknown as ContainerCreateOptions;
    const { Id } = await this.client.createContainer(options, AbortSignal.timeout(CALL_TIMEOUT_MS));
    return Id;
  }

  async start(id: string): Promise<void> {
    await this.client.startContainer(id, AbortSignal.timeout(CALL_TIMEOUT_MS));
  }

  /** SIGTERM (the image's stop signal), then SIGKILL after `seconds`; a stopped or gone container is fine. */
  async stop(id: string, seconds: number): Promise<void> {
    const signal = AbortSignal.timeout(seconds * 1000 + CALL_TIMEOUT_MS);
    try {
      await this.http.empty('POST', `/containers/${id}/stop`, { query: { t: Math.max(0, seconds) }, signal });
    } catch (error) {
      if (statusOf(error) !== 404 && statusOf(error) !== 304) throw error;
    }
  }

  wait(id: string, signal: AbortSignal): Promise<{ StatusCode: number }> {
    return this.client.waitContainer(id, signal);
  }

  inspect(id: string): Promise<ContainerDetails> {
    return this.http.json('GET', `/containers/${id}/json`, { signal: AbortSignal.timeout(CALL_TIMEOUT_MS) });
  }

  /** Removes a container (killing it first); one already gone, or going, is not an error. */
  async remove(id: string): Promise<void> {
    try {
      await this.client.removeContainer(id, { force: true, volumes: true });
    } catch (error) {
      if (statusOf(error) !== 404 && statusOf(error) !== 409) throw error;
    }
  }

  /** The multiplexed stdout/stderr log stream of a container. */
  logs(id: string, query: LogQuery, signal: AbortSignal): Promise<IncomingMessage> {
    return this.http.send('GET', `/containers/${id}/logs`, {
      query: { stdout: true, stderr: true, ...query },
      signal,
    });
  }

  /**
   * Starts `command` in a running container (no TTY) and hijacks its streams: the socket carries
   * Docker's multiplexed stdout/stderr one way and the command's stdin the other; ending the
   * socket's writing side closes that stdin. Its exit code is `execExit`'s once the output ended.
   */
  async exec(id: string, command: string[], stdin: boolean): Promise<{ execId: string; socket: Duplex }> {
    const signal = AbortSignal.timeout(CALL_TIMEOUT_MS);
    const { Id: execId } = await this.http.json<{ Id: string }>('POST', `/containers/${id}/exec`, {
      body: { AttachStdin: stdin, AttachStdout: true, AttachStderr: true, Tty: false, Cmd: command },
      signal,
    });
    // No time limit: a signal on the request would also cut the hijacked connection it becomes.
    const socket = await this.http.upgrade('POST', `/exec/${execId}/start`, {
      body: { Detach: false, Tty: false },
    });
    return { execId, socket };
  }

  /** The exit code of an exec that ended; undefined while it runs. */
  async execExit(execId: string): Promise<number | undefined> {
    const state = await this.http.json<{ Running: boolean; ExitCode: number | null }>(
      'GET',
      `/exec/${execId}/json`,
      { signal: AbortSignal.timeout(CALL_TIMEOUT_MS) },
    );
    return state.Running ? undefined : (state.ExitCode ?? undefined);
  }

  /** The image, or undefined when the engine does not have it. */
  async image(reference: string): Promise<ImageDetails | undefined> {
    try {
      const path = `/images/${encodeURIComponent(reference).replaceAll('%2F', '/')}/json`;
      return await this.http.json<ImageDetails>('GET', path, {
        signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
      });
    } catch (error) {
      if (statusOf(error) === 404) return undefined;
      throw error;
    }
  }

  /** Pulls an image; throws with the engine's message when it fails. */
  async pull(reference: string, auth: RegistryAuth | undefined, cancel: AbortSignal): Promise<void> {
    const signal = AbortSignal.any([AbortSignal.timeout(5 * 60_000), cancel]);
    for await (const _event of this.client.pullImage(reference, { auth, signal })) {
      // progress is of no interest; the stream ends when the pull is done
    }
  }

  async createVolume(body: {
    Name: string;
    Labels: Record<string, string>;
    Driver?: string;
    DriverOpts?: Record<string, string>;
  }): Promise<void> {
    await this.http.empty('POST', '/volumes/create', { body, signal: AbortSignal.timeout(CALL_TIMEOUT_MS) });
  }

  async removeVolume(name: string): Promise<void> {
    try {
      await this.client.removeVolume(name);
    } catch (error) {
      if (statusOf(error) !== 404) throw error;
    }
  }

  /**
   * The gateway of the default bridge: the node's address as the pods see it. Looked for as
   * test/support/bridge-gateway.ts says; the last attempt starts the sandbox image on the bridge and
   * reads the gateway it was given. Throws GatewayNotFound naming every attempt when none answers.
   */
  async bridgeGateway(
    sandbox: { image: string; command: string[] },
    labels: Record<string, string>,
  ): Promise<string> {
    const bridge = await this.http.json<BridgeInspect>('GET', '/networks/bridge', {
      signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
    });
    const answer = gatewayFromInspect(bridge);
    if (answer.address !== undefined) return answer.address;
    const fromContainer = await this.containerGateway(sandbox, labels);
    if (typeof fromContainer === 'string') return fromContainer;
    throw new GatewayNotFound('bridge', [...answer.tried, fromContainer.tried]);
  }

  /** The gateway a container of `sandbox` started on the default bridge was given; removed at once. */
  async containerGateway(
    sandbox: { image: string; command: string[] },
    labels: Record<string, string>,
  ): Promise<string | { tried: string }> {
    const attempt = `a ${sandbox.image} container's NetworkSettings on bridge`;
    let id: string | undefined;
    try {
      id = await this.create({
        Image: sandbox.image,
        Cmd: sandbox.command.length > 0 ? sandbox.command : null,
        Labels: labels,
        HostConfig: { NetworkMode: 'bridge' },
      });
      await this.start(id);
      const { NetworkSettings } = await this.inspect(id);
      return (
        gatewayFromContainer(NetworkSettings, 'bridge') ?? {
          tried: `${attempt} (no Gateway in ${JSON.stringify(NetworkSettings)})`,
        }
      );
    } catch (error) {
      return { tried: `${attempt} (${error instanceof Error ? error.message : String(error)})` };
    } finally {
      if (id !== undefined) await this.remove(id).catch(() => undefined);
    }
  }

  /** Removes every container and volume that carries `label` (`key=value`). */
  async removeLabelled(label: string): Promise<void> {
    await removeMatching(this.client, { label: [label] });
  }

  /** Removes what doubles whose process is gone left behind (a crashed test run). */
  async sweepLeftovers(): Promise<void> {
    const filter = { label: [LABEL_PID] };
    const [containers, volumes] = await Promise.all([
      this.client.listContainers(filter),
      this.client.listVolumes(filter),
    ]);
    const dead = (labels: Record<string, string> | null) => !processAlive(Number(labels?.[LABEL_PID] ?? 0));
    await Promise.all(containers.filter((c) => dead(c.Labels)).map((c) => this.remove(c.Id)));
    await Promise.all(volumes.filter((v) => dead(v.Labels)).map((v) => this.removeVolume(v.Name)));
  }

  close(): void {
    this.http.close();
    this.client.close();
  }
}

export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, it is just not ours to signal.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A Docker timestamp (nanoseconds) as metav1.Time writes it (seconds); Docker's zero time is null. */
export function kubeTime(dockerTime: string | undefined): string | null {
  if (dockerTime === undefined || dockerTime.startsWith('0001-')) return null;
  return `${dockerTime.slice(0, 19)}Z`;
}

export const now = (): string => `${new Date().toISOString().slice(0, 19)}Z`;
