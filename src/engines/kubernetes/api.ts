import type { Writable } from 'node:stream';
import {
  ApiException,
  CoreV1Api,
  Log,
  PatchStrategy,
  setHeaderOptions,
  Watch,
  type KubeConfig,
  type V1Pod,
  type V1Secret,
} from '@kubernetes/client-node';
import { PodExec } from './exec.js';
import type { KubePod } from './pod-state.js';

/** Kubernetes refused a call; `reason` is the Status reason (`NotFound`, `Conflict`, `Forbidden`, …). */
export class KubeApiError extends Error {
  constructor(
    readonly status: number,
    readonly reason: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'KubeApiError';
  }
}

/** One event of a pod watch: the raw object, as the API server sent it. */
export interface PodEvent {
  type: string;
  object: KubePod & { metadata?: { resourceVersion?: string } };
}

/**
 * The calls of the Kubernetes API (core/v1) the kubernetes engine makes, through
 * @kubernetes/client-node, with the API server's refusals turned into KubeApiErrors carrying the
 * Status message. Pod updates are strategic merge patches: they change only the containers and
 * annotations they name, so concurrent step launches never conflict (no read-modify-write loop).
 */
export class KubeApi {
  readonly #core: CoreV1Api;
  readonly #watch: Watch;
  readonly #log: Log;
  readonly server: string;
  /** Commands in a pod's container (the `exec` subresource, over a WebSocket). */
  readonly exec: PodExec;

  constructor(config: KubeConfig) {
    this.#core = config.makeApiClient(CoreV1Api);
    this.#watch = new Watch(config);
    this.#log = new Log(config);
    this.exec = new PodExec(config);
    this.server = config.getCurrentCluster()?.server ?? '(no cluster)';
  }

  async createNamespace(name: string, labels: Record<string, string>): Promise<void> {
    await call(`creating the namespace ${name}`, () =>
      this.#core.createNamespace({ body: { metadata: { name, labels } } }),
    );
  }

  async deleteNamespace(name: string): Promise<void> {
    await call(`deleting the namespace ${name}`, () => this.#core.deleteNamespace({ name }));
  }

  async listNamespaces(labelSelector: string): Promise<string[]> {
    const list = await call('listing namespaces', () => this.#core.listNamespace({ labelSelector }));
    return list.items.map((item) => item.metadata?.name ?? '').filter((name) => name !== '');
  }

  async createSecret(namespace: string, body: V1Secret): Promise<void> {
    await call(`creating the secret ${body.metadata?.name ?? ''}`, () =>
      this.#core.createNamespacedSecret({ namespace, body }),
    );
  }

  async deleteSecret(namespace: string, name: string): Promise<void> {
    await call(`deleting the secret ${name}`, () => this.#core.deleteNamespacedSecret({ namespace, name }));
  }

  async listSecrets(namespace: string, labelSelector: string): Promise<string[]> {
    const list = await call('listing secrets', () =>
      this.#core.listNamespacedSecret({ namespace, labelSelector }),
    );
    return list.items.map((item) => item.metadata?.name ?? '').filter((name) => name !== '');
  }

  async createPod(namespace: string, body: V1Pod): Promise<void> {
    await call(`creating the pod ${body.metadata?.name ?? ''}`, () =>
      this.#core.createNamespacedPod({ namespace, body }),
    );
  }

  async readPod(namespace: string, name: string): Promise<KubePod> {
    return await call(`reading the pod ${name}`, () => this.#core.readNamespacedPod({ namespace, name }));
  }

  /** A strategic merge patch of the pod (containers merge by name, annotations by key). */
  async patchPod(namespace: string, name: string, patch: object): Promise<void> {
    await call(`updating the pod ${name}`, () =>
      this.#core.patchNamespacedPod(
        { namespace, name, body: patch },
        setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
      ),
    );
  }

  async deletePod(namespace: string, name: string, gracePeriodSeconds: number): Promise<void> {
    await call(`deleting the pod ${name}`, () =>
      this.#core.deleteNamespacedPod({ namespace, name, gracePeriodSeconds }),
    );
  }

  async listPods(namespace: string, labelSelector: string): Promise<string[]> {
    const list = await call('listing pods', () => this.#core.listNamespacedPod({ namespace, labelSelector }));
    return list.items.map((item) => item.metadata?.name ?? '').filter((name) => name !== '');
  }

  /**
   * Watches one pod from `resourceVersion`; `done` is called once when the watch ends (the server
   * closed it, an error, or the returned controller aborted it).
   */
  async watchPod(
    namespace: string,
    name: string,
    resourceVersion: string,
    onEvent: (event: PodEvent) => void,
    done: (error: unknown) => void,
  ): Promise<AbortController> {
    return await this.#watch.watch(
      `/api/v1/namespaces/${namespace}/pods`,
      {
        fieldSelector: `metadata.name=${name}`,
        allowWatchBookmarks: true,
        ...(resourceVersion === '' ? {} : { resourceVersion }),
      },
      (type: string, object: PodEvent['object']) => onEvent({ type, object }),
      done,
    );
  }

  /** A container's log as it is now (not followed); the last `tailLines` lines when given. */
  async readLog(namespace: string, pod: string, container: string, tailLines?: number): Promise<string> {
    return await call(`reading the log of ${pod}/${container}`, () =>
      this.#core.readNamespacedPodLog({
        namespace,
        name: pod,
        container,
        ...(tailLines === undefined ? {} : { tailLines }),
      }),
    );
  }

  /** Streams a container's log (followed) into `sink`; resolves once the stream is open. */
  async followLog(
    namespace: string,
    pod: string,
    container: string,
    sink: Writable,
  ): Promise<AbortController> {
    return await call(`reading the log of ${pod}/${container}`, () =>
      this.#log.log(namespace, pod, container, sink, { follow: true }),
    );
  }
}

async function call<T>(what: string, send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (error) {
    throw asKubeError(what, error);
  }
}

/** The API server's Status (a JSON string in ApiException.body) as a KubeApiError. */
export function asKubeError(what: string, error: unknown): Error {
  if (!(error instanceof ApiException)) {
    const message = error instanceof Error ? error.message : String(error);
    return new KubeApiError(0, 'Unreachable', `${what}: ${message}`, { cause: error });
  }
  const status = error as ApiException<unknown>;
  let reason = '';
  let message = status.message;
  const body: unknown = typeof status.body === 'string' ? safeJson(status.body) : status.body;
  if (typeof body === 'object' && body !== null) {
    const fields = body as { reason?: unknown; message?: unknown };
    if (typeof fields.reason === 'string') reason = fields.reason;
    if (typeof fields.message === 'string') message = fields.message;
  }
  return new KubeApiError(status.code, reason, `${what}: Kubernetes answered ${status.code}: ${message}`, {
    cause: error,
  });
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
