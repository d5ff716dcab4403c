/*
 * /api/v1/namespaces/{ns}/pods[/{name}] and /api/v1/pods. Create goes through what the API server does in
 * order: NamespaceLifecycle (404/403), ServiceAccount admission (403 for a missing account), name
 * generation, defaults, validation (422), storage (409 when taken); the answer is 201 with uid,
 * resourceVersion, creationTimestamp and phase Pending, and the scheduler runs right after. Updates (PUT,
 * and PATCH in its three flavours) check `metadata.resourceVersion` when given (409), keep the status and
 * system fields, and only let the mutable fields change (422). DELETE is graceful (kubelet.ts).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { copy } from './cluster.js';
import { checkNamespaceAccepts, timestamp, type ApiContext } from './api-context.js';
import {
  alreadyExists,
  badRequest,
  conflict,
  forbidden,
  invalid,
  notFound,
  STALE_OBJECT,
  unsupportedMediaType,
} from './errors.js';
import { applyPatch, deepEqual, PATCH_TYPES, type PatchType } from './patch.js';
import { addDefaultTolerations, applyPodDefaults, checkPodShape, validatePodCreate } from './pod-spec.js';
import { qosClass } from './pod-status.js';
import { validatePodUpdate } from './pod-update.js';
import { jsonBody, type ApiRequest, type Reply } from './server.js';
import type { Pod } from './types.js';
import { listOrWatch, watchOne } from './watch.js';

export function createPod(ctx: ApiContext, request: ApiRequest): Reply {
  const namespace = request.params[0] ?? '';
  const body = copy(jsonBody(request, 'Pod'));
  checkPodShape(body);
  const pod = body;
  pod.metadata ??= {};
  if (pod.metadata.namespace !== undefined && pod.metadata.namespace !== namespace) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  const shownName = pod.metadata.name ?? pod.metadata.generateName ?? '';
  checkNamespaceAccepts(ctx, namespace, 'pods', shownName);
  const account = pod.spec.serviceAccountName ?? pod.spec.serviceAccount ?? 'default';
  if (account !== 'default' && !ctx.serviceAccounts(namespace).includes(account)) {
    throw forbidden(
      'pods',
      shownName,
      `error looking up service account ${namespace}/${account}: serviceaccount "${account}" not found`,
    );
  }
  if ((pod.metadata.name ?? '') === '' && (pod.metadata.generateName ?? '') !== '') {
    pod.metadata.name = `${pod.metadata.generateName ?? ''}${randomBytes(3).toString('hex').slice(0, 5)}`;
  }
  applyPodDefaults(pod);
  addDefaultTolerations(pod);
  const errors = validatePodCreate(pod);
  const name = pod.metadata.name ?? '';
  if (errors.length > 0) throw invalid('Pod', name, errors);
  if (ctx.cluster.pod(namespace, name) !== undefined) throw alreadyExists('pods', name);
  const { resourceVersion: _ignored, deletionTimestamp: _alsoIgnored, ...metadata } = pod.metadata;
  const { kind: _kind, apiVersion: _apiVersion, metadata: _metadata, spec, status: _status, ...rest } = pod;
  // Fields in the order the API server writes them.
  const stored = ctx.cluster.put<Pod>('pods', {
    kind: 'Pod',
    apiVersion: 'v1',
    metadata: { ...metadata, namespace, uid: randomUUID(), creationTimestamp: timestamp() },
    spec,
    ...rest,
    status: { phase: 'Pending', qosClass: qosClass(pod.spec) },
  });
  // The scheduler (or, for a pod that names its node, the kubelet) acts after the ADDED event.
  setImmediate(() => {
    try {
      const current = ctx.cluster.pod(namespace, name);
      if (current === undefined || current.metadata.uid !== stored.metadata.uid) return;
      if (current.spec.nodeName === undefined) ctx.scheduler.schedule(current);
      else ctx.kubelet.sync(current);
    } catch (error) {
      ctx.reportError(error);
    }
  });
  return { status: 201, body: stored };
}

function currentPod(ctx: ApiContext, request: ApiRequest): Pod {
  const [namespace = '', name = ''] = request.params;
  const pod = ctx.cluster.pod(namespace, name);
  if (pod === undefined) throw notFound('pods', name);
  return pod;
}

export function getPod(ctx: ApiContext, request: ApiRequest): Reply {
  const [namespace = '', name = ''] = request.params;
  return watchOne(ctx, request, 'pods', namespace, name) ?? { status: 200, body: currentPod(ctx, request) };
}

export function listPods(ctx: ApiContext, request: ApiRequest): Reply {
  return listOrWatch(ctx, request, 'pods', request.params[0]);
}

export function replacePod(ctx: ApiContext, request: ApiRequest): Reply {
  const current = currentPod(ctx, request);
  const body = copy(jsonBody(request, 'Pod'));
  checkPodShape(body);
  const name = current.metadata.name ?? '';
  if (body.metadata?.name !== undefined && body.metadata.name !== name) {
    throw badRequest(
      `the name of the object (${body.metadata.name}) does not match the name on the URL (${name})`,
    );
  }
  return update(ctx, current, body);
}

export function patchPod(ctx: ApiContext, request: ApiRequest): Reply {
  const current = currentPod(ctx, request);
  if (!(PATCH_TYPES as readonly string[]).includes(request.contentType)) {
    ctx.unmodelled(`PATCH ${request.path} with Content-Type ${request.contentType}`);
    throw unsupportedMediaType(request.contentType);
  }
  const patch = jsonBody(request, 'Pod');
  const next = copy(applyPatch(request.contentType as PatchType, current, patch));
  checkPodShape(next);
  return update(ctx, current, next);
}

function update(ctx: ApiContext, current: Pod, next: Pod): Reply {
  const name = current.metadata.name ?? '';
  next.metadata ??= {};
  const wanted = next.metadata.resourceVersion;
  if (wanted !== undefined && wanted !== '' && wanted !== current.metadata.resourceVersion) {
    throw conflict('pods', name, STALE_OBJECT);
  }
  next.apiVersion = 'v1';
  next.kind = 'Pod';
  next.metadata.name = name;
  next.metadata.namespace = current.metadata.namespace;
  next.metadata.uid ??= current.metadata.uid;
  next.metadata.creationTimestamp = current.metadata.creationTimestamp;
  for (const field of ['deletionTimestamp', 'deletionGracePeriodSeconds'] as const) {
    if (current.metadata[field] === undefined) delete next.metadata[field];
    else next.metadata[field] = current.metadata[field] as never;
  }
  // The status is a subresource: an update of the pod leaves it alone.
  next.status = current.status;
  applyPodDefaults(next);
  const errors = validatePodUpdate(next, current);
  if (errors.length > 0) throw invalid('Pod', name, errors);
  const { resourceVersion: _new, ...nextMeta } = next.metadata;
  const { resourceVersion: _old, ...currentMeta } = current.metadata;
  if (deepEqual({ ...next, metadata: nextMeta }, { ...current, metadata: currentMeta })) {
    return { status: 200, body: current };
  }
  const stored = ctx.cluster.put('pods', next);
  if (stored.spec.nodeName === undefined) {
    setImmediate(() => {
      try {
        ctx.scheduler.scheduleAll();
      } catch (error) {
        ctx.reportError(error);
      }
    });
  } else ctx.kubelet.sync(stored);
  return { status: 200, body: stored };
}

interface DeleteOptions {
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
}

export function deletePod(ctx: ApiContext, request: ApiRequest): Reply {
  const current = currentPod(ctx, request);
  const name = current.metadata.name ?? '';
  const options = (
    request.text.trim() === '' ? {} : (jsonBody(request, 'DeleteOptions') ?? {})
  ) as DeleteOptions;
  const { uid, resourceVersion } = options.preconditions ?? {};
  if (uid !== undefined && uid !== current.metadata.uid) {
    throw conflict(
      'pods',
      name,
      `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${current.metadata.uid ?? ''}`,
    );
  }
  if (resourceVersion !== undefined && resourceVersion !== current.metadata.resourceVersion) {
    throw conflict(
      'pods',
      name,
      `Precondition failed: ResourceVersion in precondition: ${resourceVersion}, ResourceVersion in object meta: ${current.metadata.resourceVersion ?? ''}`,
    );
  }
  const fromQuery = request.query.get('gracePeriodSeconds');
  const grace = Math.max(
    0,
    fromQuery !== null && fromQuery !== ''
      ? Number(fromQuery)
      : (options.gracePeriodSeconds ?? current.spec.terminationGracePeriodSeconds ?? 30),
  );
  if (!Number.isFinite(grace)) throw badRequest(`invalid gracePeriodSeconds: ${fromQuery ?? ''}`);
  return { status: 200, body: ctx.kubelet.delete(current, grace) };
}
