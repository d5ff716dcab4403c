/**
 * # Kubernetes API double that runs pods on Docker
 *
 * A real HTTP server on 127.0.0.1 answering the core/v1 Kubernetes API that svc's Kubernetes runner uses
 * (drone-runner-kube's behaviour, research notes /tmp/research/kubernetes.md §1.4–1.6 and §3), with an
 * in-process scheduler and kubelet that really run the pods' containers on a Docker engine. Built from
 * public sources only (k8s.io/apimachinery errors and selectors, the kubelet's status and log rules, the
 * API reference); drive it with @kubernetes/client-node (kubeconfig with `insecure-skip-tls-verify`).
 *
 * Modelled:
 * - Errors as `Status` objects with the API server's reasons, codes and messages (NotFound,
 *   AlreadyExists, Conflict, Invalid with causes, Forbidden, BadRequest, Unauthorized,
 *   UnsupportedMediaType, Expired); unknown paths: 404 "the server could not find the requested
 *   resource", recorded in `unknownCalls()`. With a token, a call without `Bearer <token>` is a 401.
 * - Namespaces (create/get/list/watch/delete; deletion goes through Terminating, refuses new content
 *   with 403, deletes secrets and pods, then the namespace); service accounts as a lookup only (`default`
 *   plus the configured ones; a pod naming another is the ServiceAccount admission's 403).
 * - Secrets (create/get/list/watch/delete/deleteCollection, all-namespaces list; write-only
 *   `stringData`; Opaque default; dockerconfigjson/dockercfg key checks).
 * - Pods: create (defaults, validation, generateName), get, list/watch with label and field selectors
 *   (here and in all namespaces), PUT (optimistic concurrency) and PATCH (strategic merge, JSON merge,
 *   JSON patch) under the pod-update rules, graceful DELETE (deletionTimestamp, containers stopped within
 *   the grace period, then DELETED; immediate when unscheduled or finished), logs (follow, previous,
 *   timestamps, tailLines, sinceSeconds/sinceTime, limitBytes; the kubelet's 400s), and exec over a
 *   WebSocket (v5/v4/channel.k8s.io subprotocols, channel framing, stdin CLOSE, the exit Status;
 *   run with Docker's exec: see exec.ts).
 * - Watches: one global resourceVersion, bounded history replay, 410 Expired ERROR events, BOOKMARKs,
 *   timeoutSeconds, selectors evaluated on both sides of a change. Discovery: /version, /api, /api/v1, /apis.
 * - Scheduling on one node: taints/tolerations, nodeSelector and required node affinity, cpu/memory
 *   requests against allocatable, the scheduler's Unschedulable messages; retried when resources free up.
 * - Execution on Docker: a sandbox container per pod (network + IPC namespace, hostname, hostAliases,
 *   dnsConfig) that every container joins; emptyDir (Docker volume, Memory medium as tmpfs), hostPath,
 *   downwardAPI and secret volumes (files rewritten atomically, `..data` symlink swap, whenever labels,
 *   annotations or the secret change, before the containers an update restarts); command/args/workingDir,
 *   env (value, `$(VAR)` expansion, secretKeyRef, fieldRef, envFrom secretRef), securityContext
 *   (privileged, runAsUser/runAsGroup), limits (Memory, NanoCpus), image pull policies and pulls with
 *   imagePullSecrets credentials (recorded), init containers in order, restart policies (Never, OnFailure,
 *   Always with CrashLoopBackOff), and the image-change restart Drone's runner relies on: a running
 *   container whose spec image changes is stopped (SIGTERM, SIGKILL after the grace period), reported
 *   terminated, and started again from the new image with restartCount + 1 — even under restartPolicy
 *   Never. If that start fails (pull, config) under Never, the kubelet does not retry: the status keeps
 *   the stopped instance's terminated state (the reason is in `pods()[].containers[].lastFailure`);
 *   `retryFailedImageSwap` makes the double retry with back-off instead.
 * - Statuses as the kubelet reports them: container states, lastState, restartCount, normalised image,
 *   imageID, `docker://` containerID, phase, conditions, hostIP/podIP, qosClass.
 *
 * Not modelled: other resources and API groups (configMaps, services, serviceAccounts as objects,
 * events, nodes, …; configMap/PVC/projected volumes leave a pod ContainerCreating), updates of secrets
 * and namespaces (PUT/PATCH answer 405 and are recorded as unknown calls), the `status`,
 * `attach` and `portforward` subresources (and exec over SPDY), server-side apply, dryRun, pagination (`limit`
 * returns everything), finalizers, probes (a running container is ready), activeDeadlineSeconds
 * enforcement, ephemeral containers, service-link environment variables and cluster DNS, the
 * service-account token volume, subPath on emptyDir, image GC, `terminated.signal`.
 *
 * Deviations to know: the double and dockerd must share a file system (downwardAPI/secret volume files
 * and hostPath are host directories); an image present locally is used when a pull under `Always`
 * fails (no registry is reachable in tests); pull errors read `rpc error: code = Unknown desc = Error
 * response from daemon: …` as with a Docker-backed kubelet; back-off delays are short (options);
 * kubelet status changes and downwardAPI file updates are immediate rather than periodic. As on a real
 * node, the downwardAPI annotations file also holds `kubernetes.io/config.seen` and
 * `kubernetes.io/config.source`, and `spec.terminationGracePeriodSeconds` is immutable on update.
 *
 * Every Docker object carries the labels `io.svc.kubernetes-double=<instance>` and
 * `io.svc.kubernetes-double.pid=<pid>`: close() removes by the first, a start sweeps what dead
 * processes left behind by the second (containers, volumes, and their state directories).
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { dockerClient } from '../../../src/engines/docker/client.js';
import type { ApiContext } from './api-context.js';
import { Cluster, copy } from './cluster.js';
import type { PullAttempt } from './image-puller.js';
import { Engine, LABEL_INSTANCE, LABEL_PID } from './docker.js';
import { ExecEndpoint } from './exec.js';
import { Kubelet } from './kubelet.js';
import { namespaceObject } from './namespaces.js';
import { resolveOptions, renderKubeconfig, type KubernetesDoubleOptions } from './options.js';
import { routes } from './routes.js';
import { Scheduler } from './scheduler.js';
import { createApiServer } from './server.js';
import { describePods, dockerLabels, prepareStateDir, removeStateDir, type PodView } from './state.js';
import type { Namespace, Secret, Taint } from './types.js';

export type { KubernetesDoubleOptions, PodView, PullAttempt };

export interface KubernetesDouble {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** A kubeconfig (YAML) for the double: cluster, user with the token if any, context namespace default. */
  readonly kubeconfig: string;
  readonly token: string | undefined;
  /** The Docker label value every container and volume of this double carries (key LABEL_INSTANCE). */
  readonly instance: string;
  /** `METHOD path?query` of every request to a path the double does not know (answered 404). */
  unknownCalls(): readonly string[];
  /** Known paths used in a way the double does not model (e.g. a server-side apply PATCH). */
  unmodelledCalls(): readonly string[];
  /** Errors inside the double (bugs, or engine failures outside any container); tests expect none. */
  internalErrors(): readonly string[];
  /** The pods with their Docker containers, as the node sees them. */
  pods(): PodView[];
  namespaces(): Namespace[];
  secrets(): Secret[];
  /** Every image pull attempted, with the imagePullSecrets given and the one whose credentials were used. */
  pullAttempts(): PullAttempt[];
  /** Forgets the watch history (as an etcd compaction): a watch from an older resourceVersion gets 410. */
  compactWatchHistory(): void;
  /** Changes the node (taints, labels, allocatable); pending pods are scheduled again. */
  updateNode(change: {
    labels?: Record<string, string>;
    taints?: Taint[];
    allocatable?: { cpu?: string; memory?: string };
  }): void;
  /** Adds a service account to a namespace (`*`: all). */
  addServiceAccount(namespace: string, name: string): void;
  /** Stops the server, kills every pod and removes every Docker container and volume it created. */
  close(): Promise<void>;
}

export async function startKubernetesDouble(
  options: KubernetesDoubleOptions = {},
): Promise<KubernetesDouble> {
  const config = resolveOptions(options);
  const instance = `${process.pid}-${randomBytes(4).toString('hex')}`;
  const engine = new Engine(dockerClient({ host: config.docker }));
  await engine.sweepLeftovers();
  const stateDir = await prepareStateDir(config.stateDir, instance);
  const cluster = new Cluster(config.watchHistory);
  for (const name of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) {
    cluster.put('namespaces', namespaceObject(name));
  }
  const unknown: string[] = [];
  const unmodelled: string[] = [];
  const errors: string[] = [];
  const pulls: PullAttempt[] = [];
  const streams = new Set<ServerResponse>();
  const shutdown = new AbortController();
  const closing = new AbortController();
  const onInternalError = (error: unknown) =>
    errors.push(error instanceof Error ? (error.stack ?? error.message) : String(error));
  let nodeIP: Promise<string> | undefined;

  // The scheduler and the kubelet call each other (binding starts a pod; a pod leaving frees room).
  const scheduler: Scheduler = new Scheduler(cluster, config.node, (pod) => kubelet.sync(pod));
  const retryScheduling = () =>
    setImmediate(() => {
      try {
        scheduler.scheduleAll();
      } catch (error) {
        onInternalError(error);
      }
    });
  const kubelet = new Kubelet(
    {
      cluster,
      engine,
      nodeName: config.node.name,
      stateDir,
      sandbox: config.sandbox,
      pullBackOff: config.backOff,
      retryFailedImageSwap: config.retryFailedImageSwap,
      shutdown: shutdown.signal,
      closing: closing.signal,
      labels: (pod, role, container) => dockerLabels(instance, pod, role, container),
      podLabel: (uid) => `io.svc.kubernetes-double.pod-uid=${uid}`,
      // No fallback: a made-up address would send pods' traffic nowhere, and fail far from here.
      nodeIP: () =>
        (nodeIP ??= engine
          .bridgeGateway(config.sandbox, { [LABEL_INSTANCE]: instance, [LABEL_PID]: String(process.pid) })
          .catch((error: unknown) => {
            nodeIP = undefined; // the next pod asks again
            throw error;
          })),
      secret: (namespace, name) => cluster.secret(namespace, name),
      recordPull: (attempt) => pulls.push(attempt),
      onTerminal: retryScheduling,
      onInternalError,
    },
    retryScheduling,
  );
  const serviceAccounts = config.serviceAccounts;
  const ctx: ApiContext = {
    cluster,
    kubelet,
    scheduler,
    engine,
    streams,
    bookmarkIntervalMs: config.bookmarkIntervalMs,
    serviceAccounts: (namespace) => [...(serviceAccounts[namespace] ?? []), ...(serviceAccounts['*'] ?? [])],
    unmodelled: (call) => unmodelled.push(call),
    reportError: onInternalError,
  };
  let address = '';
  const server = createApiServer({
    token: config.token,
    routes: routes(ctx, () => address),
    onUnknown: (call) => unknown.push(call),
    onError: onInternalError,
  });
  const exec = new ExecEndpoint(ctx, config.token, config.execV5);
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) =>
    exec.upgrade(request, socket, head),
  );
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, '127.0.0.1', resolve);
    });
  } catch (error) {
    await removeStateDir(stateDir);
    engine.close();
    throw error;
  }
  const { port } = server.address() as AddressInfo;
  address = `127.0.0.1:${port}`;
  const url = `http://${address}`;
  let closed: Promise<void> | undefined;

  return {
    url,
    kubeconfig: renderKubeconfig(url, config.token),
    token: config.token,
    instance,
    unknownCalls: () => [...unknown],
    unmodelledCalls: () => [...unmodelled],
    internalErrors: () => [...errors],
    pods: () => describePods(cluster, kubelet),
    namespaces: () => cluster.list<Namespace>('namespaces').map(copy),
    secrets: () => cluster.list<Secret>('secrets').map(copy),
    pullAttempts: () => pulls.map((p) => ({ ...p, imagePullSecrets: [...p.imagePullSecrets] })),
    compactWatchHistory: () => cluster.compact(),
    updateNode: (change) => {
      if (change.labels !== undefined) config.node.labels = { ...change.labels };
      if (change.taints !== undefined) config.node.taints = [...change.taints];
      Object.assign(config.node.allocatable, change.allocatable);
      retryScheduling();
    },
    addServiceAccount: (namespace, name) => {
      (serviceAccounts[namespace] ??= []).push(name);
    },
    close: () =>
      (closed ??= (async () => {
        shutdown.abort();
        for (const stream of streams) stream.end();
        exec.close();
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await kubelet.close();
        closing.abort();
        await engine.removeLabelled(`${LABEL_INSTANCE}=${instance}`).catch(onInternalError);
        await removeStateDir(stateDir);
        engine.close();
      })()),
  };
}
