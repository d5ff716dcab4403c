/*
 * Test helpers around @kubernetes/client-node 2.0.1 for the double's tests: a client from the double's
 * kubeconfig, a watch that collects events and waits for one, polling for a pod state, the Status of a
 * failed call (the client keeps the body as text), reading a followed log line by line, Docker queries.
 */
import { PassThrough } from 'node:stream';
import { createInterface } from 'node:readline';
import { ApiException, CoreV1Api, KubeConfig, Log, Watch, type V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, expect } from 'vitest';
import { dockerClient } from '../../../src/engines/docker/client.js';
import { LABEL_INSTANCE, LABEL_POD_UID } from './docker.js';
import { startKubernetesDouble, type KubernetesDouble, type KubernetesDoubleOptions } from './index.js';

export interface Client {
  kc: KubeConfig;
  core: CoreV1Api;
}

/**
 * A double for the tests of a file, started before them; after them it must have logged no internal
 * error, and close() must leave no container or volume of it in Docker.
 */
export function useDouble(options: KubernetesDoubleOptions = {}): {
  double: KubernetesDouble;
  client: Client;
} {
  const env = {} as { double: KubernetesDouble; client: Client };
  beforeAll(async () => {
    env.double = await startKubernetesDouble(options);
    env.client = clientFor(env.double.kubeconfig);
  });
  afterAll(async () => {
    const label = instanceLabel(env.double);
    expect(env.double.internalErrors()).toEqual([]);
    await env.double.close();
    expect(await dockerObjects(label)).toEqual({ containers: 0, volumes: 0 });
  });
  return env;
}

export function clientFor(kubeconfig: string): Client {
  const kc = new KubeConfig();
  kc.loadFromString(kubeconfig);
  return { kc, core: kc.makeApiClient(CoreV1Api) };
}

/** Status fields of a call that failed (ApiException keeps the raw body text). */
export async function failure(
  call: Promise<unknown>,
): Promise<{ code: number; message: string; reason: string; body: Record<string, unknown> }> {
  try {
    await call;
  } catch (error) {
    if (!(error instanceof ApiException)) throw error;
    const body = (
      typeof error.body === 'string' && error.body !== '' ? JSON.parse(error.body) : (error.body ?? {})
    ) as Record<string, unknown>;
    const text = (value: unknown) => (typeof value === 'string' ? value : '');
    return { code: error.code, message: text(body.message), reason: text(body.reason), body };
  }
  throw new Error('the call succeeded');
}

export interface WatchEvent {
  type: string;
  // Raw JSON, as the Watch class hands it over (no Date conversion).
  object: {
    metadata?: { name?: string; resourceVersion?: string; deletionTimestamp?: string };
    [key: string]: unknown;
  };
}

export interface Collector {
  events: WatchEvent[];
  /** Resolves with the first event (at or after `from`) that satisfies `test`. */
  next(test: (event: WatchEvent) => boolean, timeoutMs?: number, from?: number): Promise<WatchEvent>;
  done: Promise<unknown>;
  stop(): void;
}

export async function collect(
  kc: KubeConfig,
  path: string,
  query: Record<string, string | boolean> = {},
): Promise<Collector> {
  const events: WatchEvent[] = [];
  const waiters = new Set<() => void>();
  let finish: (error: unknown) => void = () => undefined;
  const done = new Promise((resolve) => (finish = resolve));
  const controller = await new Watch(kc).watch(
    path,
    query,
    (type, object: WatchEvent['object']) => {
      events.push({ type, object });
      for (const waiter of waiters) waiter();
    },
    (error) => finish(error),
  );
  return {
    events,
    done,
    stop: () => controller.abort(),
    next: (test, timeoutMs = 20_000, from = 0) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const found = events.slice(from).find(test);
          if (found === undefined) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(found);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(
              `no matching event on ${path} after ${timeoutMs} ms; saw ${events.map((e) => e.type).join(' ')}`,
            ),
          );
        }, timeoutMs);
        waiters.add(check);
        check();
      }),
  };
}

/** Polls a pod until `test` holds. */
export async function waitForPod(
  core: CoreV1Api,
  namespace: string,
  name: string,
  test: (pod: V1Pod) => boolean,
  timeoutMs = 20_000,
): Promise<V1Pod> {
  const deadline = Date.now() + timeoutMs;
  let pod: V1Pod | undefined;
  while (Date.now() < deadline) {
    pod = await core.readNamespacedPod({ name, namespace });
    if (test(pod)) return pod;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`pod ${namespace}/${name} did not get there: ${JSON.stringify(pod?.status)}`);
}

export const containerStatus = (pod: V1Pod, name: string) =>
  pod.status?.containerStatuses?.find((s) => s.name === name);

/** Follows a container's log with the Log class; resolves with the lines once the stream ends. */
export async function followLog(
  kc: KubeConfig,
  namespace: string,
  pod: string,
  container: string,
): Promise<string[]> {
  const sink = new PassThrough();
  const lines: string[] = [];
  const ended = new Promise<void>((resolve) => {
    createInterface({ input: sink })
      .on('line', (line) => lines.push(line))
      .on('close', resolve);
  });
  await new Log(kc).log(namespace, pod, container, sink, { follow: true });
  await ended;
  return lines;
}

/** Docker containers and volumes carrying a label (`key=value`). */
export async function dockerObjects(label: string): Promise<{ containers: number; volumes: number }> {
  const docker = dockerClient({ host: process.env.DOCKER_HOST });
  try {
    const [containers, volumes] = await Promise.all([
      docker.listContainers({ label: [label] }),
      docker.listVolumes({ label: [label] }),
    ]);
    return { containers: containers.length, volumes: volumes.length };
  } finally {
    docker.close();
  }
}

export const podLabel = (uid: string | undefined): string => `${LABEL_POD_UID}=${uid ?? ''}`;
export const instanceLabel = (double: KubernetesDouble): string => `${LABEL_INSTANCE}=${double.instance}`;

export const uniqueName = (prefix: string): string => `${prefix}-${Math.random().toString(36).slice(2, 8)}`;

/** A `.dockerconfigjson` with one registry's credentials. */
export const dockerConfig = (registry: string, user: string, password: string): string =>
  JSON.stringify({ auths: { [registry]: { auth: Buffer.from(`${user}:${password}`).toString('base64') } } });

/** The waiting state of a container in a watch event's raw pod. */
export function waiting(
  event: WatchEvent,
  container: string,
): { reason?: string; message?: string } | undefined {
  const statuses = (
    event.object.status as { containerStatuses?: { name: string; state: { waiting?: object } }[] } | undefined
  )?.containerStatuses;
  return statuses?.find((s) => s.name === container)?.state.waiting;
}

/** Waits until Docker has no container of the pod left (deletion goes on after the API forgot it). */
export async function goneFromDocker(uid: string | undefined): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if ((await dockerObjects(podLabel(uid))).containers === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`containers of pod ${uid ?? ''} are still there`);
}
