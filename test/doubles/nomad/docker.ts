/*
 * The Docker side of the double's client agent: the repo's Docker Engine API client
 * (src/engines/docker) plus the two calls it lacks (`stop` with a timeout, which is how Nomad's
 * docker driver kills a task, and `kill` with a signal), the labels that mark the double's containers,
 * and the removal of what crashed instances of the double left behind.
 */
import { readdir, rm } from 'node:fs/promises';
import { request as httpRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import type { DockerClient } from '../../../src/engines/docker/client.js';
import { statusOf } from '../../../src/engines/docker/api/errors.js';
import { API_VERSION } from '../../../src/engines/docker/api/transport.js';

/** Labels on every container the double creates (Nomad's own alloc label is added too). */
export const LABELS = {
  instance: 'io.svc.nomad-double.instance',
  pid: 'io.svc.nomad-double.pid',
  job: 'io.svc.nomad-double.job',
  alloc: 'io.svc.nomad-double.alloc',
  nomadAlloc: 'com.hashicorp.nomad.alloc_id',
};

/** Answers a Docker API call the repo's client does not offer; resolves with the HTTP status. */
function raw(client: DockerClient, method: string, path: string, timeoutMs: number): Promise<number> {
  const endpoint = client.endpoint;
  const options: RequestOptions =
    'socketPath' in endpoint
      ? { socketPath: endpoint.socketPath }
      : {
          host: endpoint.host,
          port: endpoint.port,
          ...(endpoint.tls ? { ca: endpoint.ca, cert: endpoint.cert, key: endpoint.key } : {}),
        };
  const send = 'socketPath' in endpoint || !endpoint.tls ? httpRequest : httpsRequest;
  return new Promise((resolve, reject) => {
    const req = send({ ...options, method, path: `/${API_VERSION}${path}`, timeout: timeoutMs }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer in ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end();
  });
}

/** `docker stop -t <seconds>`: the stop signal, then SIGKILL after the timeout (204, or 304 if stopped). */
export async function stopContainer(client: DockerClient, id: string, seconds: number): Promise<void> {
  const status = await raw(
    client,
    'POST',
    `/containers/${id}/stop?t=${Math.max(0, Math.floor(seconds))}`,
    seconds * 1000 + 30_000,
  );
  if (status >= 400 && status !== 404) throw new Error(`stopping container ${id}: HTTP ${status}`);
}

/** `docker kill -s <signal>`. */
export async function signalContainer(client: DockerClient, id: string, signal: string): Promise<void> {
  const status = await raw(
    client,
    'POST',
    `/containers/${id}/kill?signal=${encodeURIComponent(signal)}`,
    30_000,
  );
  if (status >= 400 && status !== 404 && status !== 409)
    throw new Error(`signalling container ${id}: HTTP ${status}`);
}

/** Removes a container, ignoring one that is already gone or being removed. */
export async function removeContainer(client: DockerClient, id: string): Promise<void> {
  try {
    await client.removeContainer(id, { force: true, volumes: true });
  } catch (error) {
    const status = statusOf(error);
    if (status !== 404 && status !== 409) throw error;
  }
}

/** Whether process `pid` still runs on this machine. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the containers and data directories of double instances whose process is gone (a crashed
 * test run). Instances of live processes — another test file running in parallel — are left alone.
 */
export async function removeLeftovers(client: DockerClient, dataRoot: string): Promise<void> {
  const containers = await client.listContainers({ label: [LABELS.pid] });
  for (const container of containers) {
    const pid = Number(container.Labels?.[LABELS.pid]);
    if (Number.isInteger(pid) && pid !== process.pid && !alive(pid))
      await removeContainer(client, container.Id);
  }
  let entries: string[] = [];
  try {
    entries = await readdir(dataRoot);
  } catch {
    return; // no root yet: nothing was left
  }
  for (const entry of entries) {
    const pid = Number(entry.split('-')[0]);
    if (Number.isInteger(pid) && pid !== process.pid && !alive(pid)) {
      await rm(join(dataRoot, entry), { recursive: true, force: true });
    }
  }
}

/** Containers of one double instance. */
export async function instanceContainers(client: DockerClient, instance: string): Promise<string[]> {
  const containers = await client.listContainers({ label: [`${LABELS.instance}=${instance}`] });
  return containers.map((container) => container.Id);
}
