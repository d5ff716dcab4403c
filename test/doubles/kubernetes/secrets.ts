/*
 * /api/v1/namespaces/{ns}/secrets and /api/v1/secrets: create, get, list/watch, delete (answers a Success
 * Status) and deleteCollection (answers the list of deleted secrets). `stringData` is write-only: merged
 * into base64 `data` on write, never returned. `type` defaults to Opaque; kubernetes.io/dockerconfigjson
 * needs a `.dockerconfigjson` key holding JSON, kubernetes.io/dockercfg a `.dockercfg` key.
 */
import { randomUUID } from 'node:crypto';
import { checkNamespaceAccepts, timestamp, type ApiContext } from './api-context.js';
import { alreadyExists, badRequest, deleted, FieldError, invalid, notFound } from './errors.js';
import { validateLabelsAndAnnotations, validateName } from './names.js';
import { selectionFrom, selects } from './selectors.js';
import { jsonBody, type ApiRequest, type Reply } from './server.js';
import type { Secret } from './types.js';
import { listOf, listOrWatch, watchOne } from './watch.js';

const KEY = /^[-._a-zA-Z0-9]+$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const REQUIRED_KEYS: Record<string, string> = {
  'kubernetes.io/dockerconfigjson': '.dockerconfigjson',
  'kubernetes.io/dockercfg': '.dockercfg',
};

const isStringMap = (value: unknown): value is Record<string, string> =>
  typeof value === 'object' &&
  value !== null &&
  !Array.isArray(value) &&
  Object.values(value).every((v) => typeof v === 'string');

export function createSecret(ctx: ApiContext, request: ApiRequest): Reply {
  const namespace = request.params[0] ?? '';
  const body = jsonBody(request, 'Secret') as Partial<Secret> | null;
  const cannot = (why: string) => badRequest(`Secret in version "v1" cannot be handled as a Secret: ${why}`);
  if (typeof body !== 'object' || body === null) throw badRequest("Object 'Kind' is missing in request body");
  const metadata = body.metadata ?? {};
  if (body.data !== undefined && !isStringMap(body.data))
    throw cannot('json: cannot unmarshal into Go struct field Secret.data of type map[string][]uint8');
  if (body.stringData !== undefined && !isStringMap(body.stringData))
    throw cannot('json: cannot unmarshal into Go struct field Secret.stringData of type map[string]string');
  if (metadata.namespace !== undefined && metadata.namespace !== namespace) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  const name = metadata.name ?? '';
  checkNamespaceAccepts(ctx, namespace, 'secrets', name);
  const data: Record<string, string> = {};
  for (const [key, value] of Object.entries(body.data ?? {})) {
    if (!BASE64.test(value)) throw cannot(`illegal base64 data at input byte ${value.length}`);
    data[key] = value;
  }
  for (const [key, value] of Object.entries(body.stringData ?? {}))
    data[key] = Buffer.from(value).toString('base64');
  const type = body.type === undefined || body.type === '' ? 'Opaque' : body.type;
  const errors = [...validateName(metadata, 'subdomain'), ...validateLabelsAndAnnotations(metadata)];
  for (const key of Object.keys(data)) {
    if (!KEY.test(key)) {
      const why =
        "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or " +
        "'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";
      errors.push(new FieldError(`data[${key}]`, 'Invalid', why, key));
    }
  }
  const required = REQUIRED_KEYS[type];
  if (required !== undefined) {
    const value = data[required];
    if (value === undefined) {
      errors.push(new FieldError(`data[${required}]`, 'Required', ''));
    } else {
      try {
        JSON.parse(Buffer.from(value, 'base64').toString('utf8'));
      } catch (error) {
        const why = error instanceof Error ? error.message : String(error);
        errors.push(new FieldError(`data[${required}]`, 'Invalid', why, '<secret contents redacted>'));
      }
    }
  }
  if (errors.length > 0) throw invalid('Secret', name, errors);
  if (ctx.cluster.secret(namespace, name) !== undefined) throw alreadyExists('secrets', name);
  const { stringData: _write_only, ...rest } = body;
  const {
    kind: _kind,
    apiVersion: _apiVersion,
    metadata: _metadata,
    type: _type,
    data: _data,
    ...other
  } = rest;
  const secret: Secret = {
    kind: 'Secret',
    apiVersion: 'v1',
    metadata: { ...metadata, name, namespace, uid: randomUUID(), creationTimestamp: timestamp() },
    ...(Object.keys(data).length > 0 ? { data } : {}),
    type,
    ...other,
  };
  const stored = ctx.cluster.put('secrets', secret);
  ctx.kubelet.secretsChanged(namespace);
  return { status: 201, body: stored };
}

export function getSecret(ctx: ApiContext, request: ApiRequest): Reply {
  const [namespace = '', name = ''] = request.params;
  const watching = watchOne(ctx, request, 'secrets', namespace, name);
  if (watching !== undefined) return watching;
  const secret = ctx.cluster.secret(namespace, name);
  if (secret === undefined) throw notFound('secrets', name);
  return { status: 200, body: secret };
}

export function listSecrets(ctx: ApiContext, request: ApiRequest): Reply {
  return listOrWatch(ctx, request, 'secrets', request.params[0]);
}

export function deleteSecret(ctx: ApiContext, request: ApiRequest): Reply {
  const [namespace = '', name = ''] = request.params;
  const secret = ctx.cluster.remove('secrets', namespace, name);
  if (secret === undefined) throw notFound('secrets', name);
  ctx.kubelet.secretsChanged(namespace);
  return { status: 200, body: deleted('secrets', name, secret.metadata.uid) };
}

export function deleteSecrets(ctx: ApiContext, request: ApiRequest): Reply {
  const namespace = request.params[0] ?? '';
  const selection = selectionFrom('secrets', request.query);
  const removed = ctx.cluster
    .list<Secret>('secrets', namespace)
    .filter((secret) => selects('secrets', selection, secret))
    .map((secret) => ctx.cluster.remove('secrets', namespace, secret.metadata.name ?? ''))
    .filter((secret) => secret !== undefined);
  ctx.kubelet.secretsChanged(namespace);
  return { status: 200, body: listOf(ctx.cluster, 'secrets', removed) };
}
