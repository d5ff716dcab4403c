import { KubeApiError, type KubeApi } from './api.js';
import { labelValue, OWNER_LABEL } from './pod-spec.js';

/**
 * Deletes what earlier runs of a runner left (it was killed): pods and Secrets labelled with its
 * name (`owner`) in `namespaces`, and its per-stage namespaces. Namespaces it may not list are skipped.
 */
export async function removeLeftovers(
  api: KubeApi,
  owner: string,
  namespaces: readonly string[],
): Promise<{ pods: string[]; secrets: string[]; namespaces: string[] }> {
  const selector = `${OWNER_LABEL}=${labelValue(owner)}`;
  const removed = { pods: [] as string[], secrets: [] as string[], namespaces: [] as string[] };
  for (const namespace of new Set(namespaces)) {
    for (const pod of await api.listPods(namespace, selector)) {
      await api.deletePod(namespace, pod, 0).catch(() => undefined);
      removed.pods.push(`${namespace}/${pod}`);
    }
    for (const secret of await api.listSecrets(namespace, selector)) {
      await api.deleteSecret(namespace, secret).catch(() => undefined);
      removed.secrets.push(`${namespace}/${secret}`);
    }
  }
  try {
    for (const namespace of await api.listNamespaces(selector)) {
      await api.deleteNamespace(namespace).catch(() => undefined);
      removed.namespaces.push(namespace);
    }
  } catch (error) {
    if (!(error instanceof KubeApiError && error.status === 403)) throw error;
  }
  return removed;
}
