/*
 * The paths the double answers (core/v1 only). Anything else is a 404 NotFound Status and is recorded
 * as an unknown call; a known path with another method is a 405.
 */
import type { ApiContext } from './api-context.js';
import { apiGroups, apiVersions, coreResources, version } from './discovery.js';
import { badRequest } from './errors.js';
import { createNamespace, deleteNamespace, getNamespace, listNamespaces } from './namespaces.js';
import { podLogs } from './pod-logs.js';
import { createPod, deletePod, getPod, listPods, patchPod, replacePod } from './pods.js';
import { createSecret, deleteSecret, deleteSecrets, getSecret, listSecrets } from './secrets.js';
import type { ApiRequest, Reply, Route } from './server.js';

const NAMESPACE = '/api/v1/namespaces/([^/]+)';

const upgradeRequired = (): Reply => {
  throw badRequest('Upgrade request required');
};

export function routes(ctx: ApiContext, serverAddress: () => string): Route[] {
  const bind =
    (handler: (ctx: ApiContext, request: ApiRequest) => Reply | Promise<Reply>) => (request: ApiRequest) =>
      handler(ctx, request);
  const path = (pattern: string) => new RegExp(`^${pattern}$`);
  return [
    { pattern: path('/version'), methods: { GET: version } },
    { pattern: path('/api'), methods: { GET: () => apiVersions(serverAddress()) } },
    { pattern: path('/api/v1'), methods: { GET: coreResources } },
    { pattern: path('/apis'), methods: { GET: apiGroups } },
    {
      pattern: path('/api/v1/namespaces'),
      methods: { GET: bind(listNamespaces), POST: bind(createNamespace) },
    },
    { pattern: path(NAMESPACE), methods: { GET: bind(getNamespace), DELETE: bind(deleteNamespace) } },
    { pattern: path(`${NAMESPACE}/pods`), methods: { GET: bind(listPods), POST: bind(createPod) } },
    {
      pattern: path(`${NAMESPACE}/pods/([^/]+)`),
      methods: { GET: bind(getPod), PUT: bind(replacePod), PATCH: bind(patchPod), DELETE: bind(deletePod) },
    },
    { pattern: path(`${NAMESPACE}/pods/([^/]+)/log`), methods: { GET: bind(podLogs) } },
    // Exec is a WebSocket upgrade (exec.ts); a plain request is the API server's 400.
    {
      pattern: path(`${NAMESPACE}/pods/([^/]+)/exec`),
      methods: { GET: upgradeRequired, POST: upgradeRequired },
    },
    {
      pattern: path(`${NAMESPACE}/secrets`),
      methods: { GET: bind(listSecrets), POST: bind(createSecret), DELETE: bind(deleteSecrets) },
    },
    {
      pattern: path(`${NAMESPACE}/secrets/([^/]+)`),
      methods: { GET: bind(getSecret), DELETE: bind(deleteSecret) },
    },
    { pattern: path('/api/v1/pods'), methods: { GET: bind(listPods) } },
    { pattern: path('/api/v1/secrets'), methods: { GET: bind(listSecrets) } },
  ];
}
