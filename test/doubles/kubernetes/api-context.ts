/*
 * What the API handlers share: the store, the node (scheduler + kubelet), the service accounts each
 * namespace has, and the namespace lifecycle check every create goes through (the NamespaceLifecycle
 * admission plug-in: 404 for a missing namespace, 403 while it terminates).
 */
import type { Cluster } from './cluster.js';
import { now, type Engine } from './docker.js';
import { forbidden, notFound } from './errors.js';
import type { Kubelet } from './kubelet.js';
import type { Scheduler } from './scheduler.js';
import type { WatchContext } from './watch.js';

export interface ApiContext extends WatchContext {
  cluster: Cluster;
  kubelet: Kubelet;
  scheduler: Scheduler;
  engine: Engine;
  /** Service accounts that exist in a namespace besides `default`. */
  serviceAccounts(namespace: string): string[];
  /** Records a call the double does not model (besides unknown paths). */
  unmodelled(call: string): void;
  /** Records an error of background work (a bug of the double; tests expect none). */
  reportError(error: unknown): void;
}

/** Throws the NamespaceLifecycle answer when `namespace` cannot take new `resource` "name". */
export function checkNamespaceAccepts(
  ctx: ApiContext,
  namespace: string,
  resource: string,
  name: string,
): void {
  const found = ctx.cluster.namespace(namespace);
  if (found === undefined) throw notFound('namespaces', namespace);
  if (found.status.phase === 'Terminating' || found.metadata.deletionTimestamp !== undefined) {
    throw forbidden(
      resource,
      name,
      `unable to create new content in namespace ${namespace} because it is being terminated`,
    );
  }
}

/** A timestamp as metav1.Time writes it (RFC 3339, seconds). */
export const timestamp = now;
