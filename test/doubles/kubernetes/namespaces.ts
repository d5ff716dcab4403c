/*
 * /api/v1/namespaces: create, get, list/watch, delete. `default`, `kube-system`, `kube-public` and
 * `kube-node-lease` exist from the start and cannot be deleted. Every namespace gets the
 * `kubernetes.io/metadata.name` label. Deletion is asynchronous, as the namespace controller does it:
 * the namespace turns `Terminating` (a MODIFIED event; new content is refused with 403), its secrets go,
 * its pods are deleted gracefully (their containers stopped), then the namespace itself (DELETED).
 */
import { randomUUID } from 'node:crypto';
import { copy } from './cluster.js';
import { timestamp, type ApiContext } from './api-context.js';
import { alreadyExists, badRequest, forbidden, invalid, notFound } from './errors.js';
import { validateLabelsAndAnnotations, validateName } from './names.js';
import { jsonBody, type ApiRequest, type Reply } from './server.js';
import type { Namespace, Pod, Secret } from './types.js';
import { listOrWatch, watchOne } from './watch.js';

const PERMANENT = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

export function namespaceObject(
  name: string,
  labels: Record<string, string> = {},
  extra: Partial<Namespace['metadata']> = {},
): Namespace {
  return {
    kind: 'Namespace',
    apiVersion: 'v1',
    metadata: {
      ...extra,
      name,
      uid: randomUUID(),
      creationTimestamp: timestamp(),
      labels: { ...labels, 'kubernetes.io/metadata.name': name },
    },
    spec: { finalizers: ['kubernetes'] },
    status: { phase: 'Active' },
  };
}

export function createNamespace(ctx: ApiContext, request: ApiRequest): Reply {
  const body = jsonBody(request, 'Namespace') as Partial<Namespace> | null;
  if (
    typeof body !== 'object' ||
    body === null ||
    typeof body.metadata !== 'object' ||
    body.metadata === null
  ) {
    throw badRequest("Object 'Kind' is missing in request body");
  }
  const metadata = body.metadata;
  const name = metadata.name ?? '';
  const errors = [...validateName(metadata, 'label'), ...validateLabelsAndAnnotations(metadata)];
  if (errors.length > 0) throw invalid('Namespace', name, errors);
  if (ctx.cluster.namespace(name) !== undefined) throw alreadyExists('namespaces', name);
  const { labels, annotations } = metadata;
  const namespace = namespaceObject(name, labels, annotations === undefined ? {} : { annotations });
  return { status: 201, body: ctx.cluster.put('namespaces', namespace) };
}

export function getNamespace(ctx: ApiContext, request: ApiRequest): Reply {
  const name = request.params[0] ?? '';
  const watching = watchOne(ctx, request, 'namespaces', undefined, name);
  if (watching !== undefined) return watching;
  const found = ctx.cluster.namespace(name);
  if (found === undefined) throw notFound('namespaces', name);
  return { status: 200, body: found };
}

export function listNamespaces(ctx: ApiContext, request: ApiRequest): Reply {
  return listOrWatch(ctx, request, 'namespaces', undefined);
}

export function deleteNamespace(ctx: ApiContext, request: ApiRequest): Reply {
  const name = request.params[0] ?? '';
  const found = ctx.cluster.namespace(name);
  if (found === undefined) throw notFound('namespaces', name);
  if (PERMANENT.includes(name)) throw forbidden('namespaces', name, 'this namespace may not be deleted');
  if (found.status.phase === 'Terminating') return { status: 200, body: found };
  const terminating = copy(found);
  terminating.metadata.deletionTimestamp = timestamp();
  terminating.status = { phase: 'Terminating' };
  const stored = ctx.cluster.put('namespaces', terminating);
  finalize(ctx, name).catch((error: unknown) => ctx.reportError(error));
  return { status: 200, body: stored };
}

/** The namespace controller: empty the namespace, then remove it. */
async function finalize(ctx: ApiContext, name: string): Promise<void> {
  for (const secret of ctx.cluster.list<Secret>('secrets', name)) {
    ctx.cluster.remove('secrets', name, secret.metadata.name ?? '');
  }
  ctx.kubelet.secretsChanged(name);
  const pods = ctx.cluster.list<Pod>('pods', name);
  for (const pod of pods) ctx.kubelet.delete(pod, pod.spec.terminationGracePeriodSeconds ?? 30);
  await Promise.allSettled(pods.map((pod) => ctx.kubelet.removed(pod.metadata.uid ?? '')));
  ctx.cluster.remove('namespaces', undefined, name);
}
