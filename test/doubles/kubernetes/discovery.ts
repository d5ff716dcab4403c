/*
 * What clients probe before they call: GET /version, GET /api (APIVersions), GET /api/v1 (the
 * APIResourceList of the resources the double serves, with the verbs it answers) and GET /apis (no groups).
 */
import type { Reply } from './server.js';

export const KUBERNETES_VERSION = { major: '1', minor: '31', gitVersion: 'v1.31.0' };

export function version(): Reply {
  return {
    status: 200,
    body: {
      ...KUBERNETES_VERSION,
      gitCommit: '0000000000000000000000000000000000000000',
      gitTreeState: 'clean',
      buildDate: '2024-08-13T07:28:49Z',
      goVersion: 'go1.22.5',
      compiler: 'gc',
      platform: 'linux/amd64',
    },
  };
}

export function apiVersions(serverAddress: string): Reply {
  return {
    status: 200,
    body: {
      kind: 'APIVersions',
      versions: ['v1'],
      serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
    },
  };
}

export function apiGroups(): Reply {
  return { status: 200, body: { kind: 'APIGroupList', apiVersion: 'v1', groups: [] } };
}

export function coreResources(): Reply {
  const resource = (
    name: string,
    singularName: string,
    namespaced: boolean,
    kind: string,
    verbs: string[],
    extra = {},
  ) => ({
    name,
    singularName,
    namespaced,
    kind,
    verbs,
    ...extra,
  });
  return {
    status: 200,
    body: {
      kind: 'APIResourceList',
      groupVersion: 'v1',
      resources: [
        resource(
          'namespaces',
          'namespace',
          false,
          'Namespace',
          ['create', 'delete', 'get', 'list', 'watch'],
          {
            shortNames: ['ns'],
          },
        ),
        resource(
          'pods',
          'pod',
          true,
          'Pod',
          ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
          {
            shortNames: ['po'],
            categories: ['all'],
          },
        ),
        resource('pods/log', '', true, 'Pod', ['get']),
        resource('secrets', 'secret', true, 'Secret', [
          'create',
          'delete',
          'deletecollection',
          'get',
          'list',
          'watch',
        ]),
      ],
    },
  };
}
