/*
 * The double's options with their defaults, and the kubeconfig it hands out.
 */
import { stringify } from 'yaml';
import type { NodeConfig } from './scheduler.js';
import type { StringMap, Taint } from './types.js';

export interface KubernetesDoubleOptions {
  /** DOCKER_HOST of the engine pods run on (`unix:///…` or `tcp://…`); default: $DOCKER_HOST. */
  docker?: string;
  /** Port on 127.0.0.1; 0 (the default) picks a free one. */
  port?: number;
  /** When set, every call must carry `Authorization: Bearer <token>` (else 401). */
  token?: string;
  /** The one node. */
  node?: {
    name?: string;
    /** Default: kubernetes.io/hostname=<name>, kubernetes.io/os=linux, kubernetes.io/arch=amd64. */
    labels?: StringMap;
    taints?: Taint[];
    /** Default: 64 CPUs, 256Gi, 110 pods. */
    allocatable?: { cpu?: string; memory?: string; pods?: number };
  };
  /** Service accounts each namespace has besides `default` (key `*`: every namespace). */
  serviceAccounts?: Record<string, string[]>;
  /** Image pull (and crash loop) back-off: first delay and cap. Default 1 s and 5 s (real: 10 s, 300 s). */
  backOff?: { initialMs?: number; maxMs?: number };
  /**
   * The sandbox container of each pod: `busybox` (default: local/busybox running `sleep`), `placeholder`
   * (svc/placeholder), or an image and command of one's own.
   */
  sandbox?: 'busybox' | 'placeholder' | { image: string; command?: string[] };
  /** How often a watch with allowWatchBookmarks gets a BOOKMARK. Default 10 s. */
  bookmarkIntervalMs?: number;
  /** Events kept for watches from a resourceVersion. Default 1000. */
  watchHistory?: number;
  /** Retry a container whose start after an image change failed (real kubelets do not under Never). */
  retryFailedImageSwap?: boolean;
  /** Where downwardAPI/secret volume files live (must be visible to dockerd). Default: os.tmpdir(). */
  stateDir?: string;
  /**
   * The Docker network pods join (the cluster's pod network: what they can reach, e.g. a test's git
   * server); default `bridge`.
   */
  podNetwork?: string;
  /**
   * Whether exec offers `v5.channel.k8s.io` (default true): false models an API server before 1.30
   * (TranslateStreamCloseWebsocketRequests off), whose newest exec subprotocol is v4.
   */
  execV5?: boolean;
}

export interface ResolvedOptions {
  docker: string | undefined;
  port: number;
  token: string | undefined;
  node: NodeConfig;
  serviceAccounts: Record<string, string[]>;
  backOff: { initialMs: number; maxMs: number };
  sandbox: { image: string; command: string[]; network: string };
  bookmarkIntervalMs: number;
  watchHistory: number;
  retryFailedImageSwap: boolean;
  stateDir: string | undefined;
  execV5: boolean;
}

const SANDBOXES = {
  busybox: { image: 'local/busybox:latest', command: ['sleep', '2147483647'] },
  placeholder: { image: 'svc/placeholder:latest', command: [] },
};

export function resolveOptions(options: KubernetesDoubleOptions): ResolvedOptions {
  const nodeName = options.node?.name ?? 'svc-kubernetes-double';
  const sandbox = options.sandbox ?? 'busybox';
  return {
    docker: options.docker ?? process.env.DOCKER_HOST,
    port: options.port ?? 0,
    token: options.token,
    node: {
      name: nodeName,
      labels: options.node?.labels ?? {
        'kubernetes.io/hostname': nodeName,
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
      },
      taints: options.node?.taints ?? [],
      allocatable: {
        cpu: options.node?.allocatable?.cpu ?? '64',
        memory: options.node?.allocatable?.memory ?? '256Gi',
        pods: options.node?.allocatable?.pods ?? 110,
      },
    },
    serviceAccounts: options.serviceAccounts ?? {},
    backOff: { initialMs: options.backOff?.initialMs ?? 1000, maxMs: options.backOff?.maxMs ?? 5000 },
    sandbox: {
      ...(typeof sandbox === 'string'
        ? SANDBOXES[sandbox]
        : { image: sandbox.image, command: sandbox.command ?? [] }),
      network: options.podNetwork ?? 'bridge',
    },
    bookmarkIntervalMs: options.bookmarkIntervalMs ?? 10_000,
    watchHistory: options.watchHistory ?? 1000,
    retryFailedImageSwap: options.retryFailedImageSwap ?? false,
    stateDir: options.stateDir,
    execV5: options.execV5 ?? true,
  };
}

/** A kubeconfig for the double: plain HTTP needs `insecure-skip-tls-verify` with the JS client. */
export function renderKubeconfig(url: string, token: string | undefined): string {
  const name = 'svc-kubernetes-double';
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster: { server: url, 'insecure-skip-tls-verify': true } }],
    users: [{ name, user: token === undefined ? {} : { token } }],
    contexts: [{ name, context: { cluster: name, user: name, namespace: 'default' } }],
    'current-context': name,
    preferences: {},
  });
}
