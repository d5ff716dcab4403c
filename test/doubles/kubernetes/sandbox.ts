/*
 * A pod's sandbox and volumes on Docker. The sandbox is one container per pod that holds the network
 * and IPC namespaces every container of the pod joins: hostname = pod name, `hostAliases` as extra hosts,
 * `dnsConfig` as DNS servers, search domains and options. Volumes: `emptyDir` is a Docker volume per pod
 * (medium Memory: a tmpfs-backed local volume, `sizeLimit` as its size); `hostPath` a bind mount
 * (DirectoryOrCreate/FileOrCreate create it; Directory/File must exist); `downwardAPI` and `secret` are
 * directories on this machine, written by volume-files.ts and bind-mounted read-only — the double and
 * dockerd must share a file system, which they do when the engine runs on the same host.
 */
import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { bytes } from './quantity.js';
import type { CreateBody, Engine } from './docker.js';
import type { FieldValues } from './env.js';
import type { PodRuntime } from './pod-runtime.js';
import type { Pod, Secret } from './types.js';
import { downwardFiles, fingerprint, secretFiles, writeAtomically } from './volume-files.js';

export interface SandboxContext {
  engine: Engine;
  labels(pod: Pod, role: 'sandbox' | 'container' | 'volume', container?: string): Record<string, string>;
  sandbox: { image: string; command: string[]; network: string };
  nodeIP(): Promise<string>;
  secret(namespace: string, name: string): Secret | undefined;
  nodeName: string;
}

/** Why a pod cannot be set up yet; the pod stays ContainerCreating and is retried. */
export class SetupError extends Error {}

const HOST_PATH_CHECKS: Record<string, 'directory' | 'file'> = { Directory: 'directory', File: 'file' };

export async function prepareVolumes(ctx: SandboxContext, pod: Pod, runtime: PodRuntime): Promise<void> {
  for (const volume of pod.spec.volumes ?? []) {
    if (runtime.volumes.has(volume.name)) continue;
    if (volume.emptyDir !== undefined) {
      const name = `k8s-${runtime.uid}-${volume.name}`;
      const memory = volume.emptyDir.medium === 'Memory';
      const size = volume.emptyDir.sizeLimit === undefined ? 0 : bytes(volume.emptyDir.sizeLimit);
      await ctx.engine.createVolume({
        Name: name,
        Labels: ctx.labels(pod, 'volume'),
        ...(memory
          ? {
              Driver: 'local',
              DriverOpts: { type: 'tmpfs', device: 'tmpfs', ...(size > 0 ? { o: `size=${size}` } : {}) },
            }
          : {}),
      });
      runtime.volumes.set(volume.name, { kind: 'docker', source: name });
    } else if (volume.hostPath !== undefined) {
      const { path, type = '' } = volume.hostPath;
      if (type === 'DirectoryOrCreate') await mkdir(path, { recursive: true, mode: 0o755 });
      if (type === 'FileOrCreate') {
        await mkdir(dirname(path), { recursive: true, mode: 0o755 });
        await writeFile(path, '', { flag: 'a', mode: 0o644 });
      }
      const check = HOST_PATH_CHECKS[type];
      if (check !== undefined) {
        const found = await stat(path).catch(() => undefined);
        const ok = check === 'directory' ? found?.isDirectory() : found?.isFile();
        if (ok !== true) {
          throw new SetupError(
            `MountVolume.SetUp failed for volume "${volume.name}" : hostPath type check failed: ${path} is not a ${check}`,
          );
        }
      }
      runtime.volumes.set(volume.name, { kind: 'bind', source: path });
    } else if (volume.downwardAPI !== undefined || volume.secret !== undefined) {
      const secretName = volume.secret?.secretName ?? '';
      if (
        volume.secret !== undefined &&
        volume.secret.optional !== true &&
        ctx.secret(runtime.namespace, secretName) === undefined
      ) {
        throw new SetupError(
          `MountVolume.SetUp failed for volume "${volume.name}" : secret "${secretName}" not found`,
        );
      }
      runtime.volumes.set(volume.name, {
        kind: 'files',
        source: join(runtime.stateDir, 'volumes', volume.name),
      });
    } else {
      const type = Object.keys(volume).find((k) => k !== 'name') ?? 'unknown';
      throw new SetupError(
        `MountVolume.SetUp failed for volume "${volume.name}" : ${type} volumes are not modelled by the double`,
      );
    }
  }
}

/** Rewrites downwardAPI and secret volume files whose content changed (labels, annotations, secret data). */
export async function refreshVolumeFiles(
  ctx: SandboxContext,
  pod: Pod,
  runtime: PodRuntime,
  fields: FieldValues,
): Promise<void> {
  for (const volume of pod.spec.volumes ?? []) {
    const prepared = runtime.volumes.get(volume.name);
    if (prepared?.kind !== 'files') continue;
    let files;
    if (volume.downwardAPI !== undefined) {
      files = downwardFiles(pod, volume, runtime.seenAt, fields);
    } else {
      const secret = ctx.secret(runtime.namespace, volume.secret?.secretName ?? '');
      if (secret === undefined && prepared.written !== undefined) continue; // a deleted secret keeps its files
      files = secretFiles(volume, secret);
    }
    const print = fingerprint(files);
    if (print === prepared.written) continue;
    await writeAtomically(prepared.source, files);
    prepared.written = print;
  }
}

export async function startSandbox(ctx: SandboxContext, pod: Pod, runtime: PodRuntime): Promise<void> {
  const { spec } = pod;
  const image = await ctx.engine.image(ctx.sandbox.image);
  if (image === undefined)
    throw new SetupError(`failed to get sandbox image "${ctx.sandbox.image}": not present`);
  const hostNetwork = spec.hostNetwork === true;
  const dns = spec.dnsConfig ?? {};
  const body: CreateBody = {
    name: `k8s_POD_${runtime.name}_${runtime.namespace}_${runtime.uid}_0`,
    Image: image.Id,
    ...(ctx.sandbox.command.length > 0 ? { Entrypoint: ctx.sandbox.command, Cmd: null } : {}),
    ...(hostNetwork ? {} : { Hostname: (spec.hostname ?? runtime.name).slice(0, 63) }),
    ...(spec.subdomain === undefined
      ? {}
      : { Domainname: `${spec.subdomain}.${runtime.namespace}.svc.cluster.local` }),
    Labels: ctx.labels(pod, 'sandbox'),
    HostConfig: {
      NetworkMode: hostNetwork ? 'host' : ctx.sandbox.network,
      IpcMode: 'shareable',
      ExtraHosts: (spec.hostAliases ?? []).flatMap((alias) =>
        (alias.hostnames ?? []).map((host) => `${host}:${alias.ip}`),
      ),
      ...(dns.nameservers === undefined ? {} : { Dns: dns.nameservers }),
      ...(dns.searches === undefined ? {} : { DnsSearch: dns.searches }),
      ...(dns.options === undefined
        ? {}
        : { DnsOptions: dns.options.map((o) => (o.value === undefined ? o.name : `${o.name}:${o.value}`)) }),
    },
  };
  const id = await ctx.engine.create(body);
  // Recorded before it starts, so a teardown racing this finds it.
  runtime.sandbox = { id, podIP: '', hostIP: '' };
  await ctx.engine.start(id);
  const details = await ctx.engine.inspect(id);
  const hostIP = await ctx.nodeIP();
  const network = details.NetworkSettings as {
    IPAddress?: string;
    Networks?: Record<string, { IPAddress?: string }>;
  };
  const podIP = network.IPAddress || network.Networks?.[ctx.sandbox.network]?.IPAddress || '';
  if (!hostNetwork && podIP === '') {
    // A pod with no IP is not one Kubernetes would report: the sandbox died, or the network has
    // no addresses. Said here (the pod's setup problem, retried), not as an empty status field.
    const { Status, Error: reason } = details.State;
    throw new Error(
      `the pod sandbox on Docker network ${ctx.sandbox.network} has no IP address (container ${Status}${reason ? `: ${reason}` : ''}; NetworkSettings ${JSON.stringify(details.NetworkSettings)})`,
    );
  }
  runtime.sandbox = { id, hostIP, podIP: hostNetwork ? hostIP : podIP };
}

/** Removes the pod's Docker containers and volumes (found by label) and its files. */
export async function teardown(ctx: SandboxContext, runtime: PodRuntime, podLabel: string): Promise<void> {
  await ctx.engine.removeLabelled(podLabel);
  await rm(runtime.stateDir, { recursive: true, force: true });
}
