/*
 * The API's answers through @kubernetes/client-node (and raw fetch where the client cannot say it):
 * conflicts, invalid updates, the three patch types, 404/409/403/401/415 Status bodies, unknown paths,
 * discovery, scheduling failures and their retry when the node changes or room frees up, and watches
 * (replay from a resourceVersion, 410 Expired, bookmarks, selectors on both sides of a change).
 */
import { PatchStrategy, setHeaderOptions, type V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { clientFor, collect, failure, uniqueName, useDouble, waitForPod } from './client-helpers.js';

const TOKEN = 'svc-test-token';
const env = useDouble({ token: TOKEN, bookmarkIntervalMs: 300 });
const strategic = setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch);

describe('the API', () => {
  const unschedulable = (name: string, extra: Partial<V1Pod['spec']> = {}): V1Pod => ({
    metadata: { name },
    spec: {
      nodeSelector: { disk: 'ssd' },
      containers: [{ name: 'c', image: 'svc/placeholder:latest' }],
      ...extra,
    },
  });

  it('answers updates, patches and mistakes as the API server does', async () => {
    const { core } = env.client;
    const name = uniqueName('api');
    const created = await core.createNamespacedPod({ namespace: 'default', body: unschedulable(name) });
    const pending = await waitForPod(
      core,
      'default',
      name,
      (p) => p.status?.conditions?.[0]?.type === 'PodScheduled',
    );
    expect(pending.status?.conditions?.[0]).toMatchObject({
      status: 'False',
      reason: 'Unschedulable',
      message:
        "0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector. preemption: 0/1 nodes are " +
        'available: 1 Preemption is not helpful for scheduling.',
    });

    const stale = await failure(core.replaceNamespacedPod({ name, namespace: 'default', body: created }));
    expect(stale).toMatchObject({
      code: 409,
      reason: 'Conflict',
      message: `Operation cannot be fulfilled on pods "${name}": the object has been modified; please apply your changes to the latest version and try again`,
    });
    const changed = await core.readNamespacedPod({ name, namespace: 'default' });
    changed.spec!.containers[0]!.args = ['something else'];
    const forbidden = await failure(core.replaceNamespacedPod({ name, namespace: 'default', body: changed }));
    expect(forbidden.code).toBe(422);
    expect(forbidden.message).toMatch(
      new RegExp(
        `^Pod "${name}" is invalid: spec: Forbidden: pod updates may not change fields other than \`spec\\.containers\\[\\*\\]\\.image\``,
      ),
    );

    const test = await failure(
      core.patchNamespacedPod({
        name,
        namespace: 'default',
        body: [{ op: 'test', path: '/spec/containers/0/name', value: 'x' }],
      }),
    );
    expect(test).toMatchObject({ code: 422, reason: 'Invalid' });
    const missingParent = await failure(
      core.patchNamespacedPod({
        name,
        namespace: 'default',
        body: [{ op: 'add', path: '/metadata/annotations/a', value: 'b' }],
      }),
    );
    expect(missingParent.code).toBe(422);
    const merged = await core.patchNamespacedPod(
      { name, namespace: 'default', body: { metadata: { labels: { team: 'ci', gone: 'soon' } } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    expect(merged.metadata?.labels).toEqual({ team: 'ci', gone: 'soon' });
    const pruned = await core.patchNamespacedPod(
      { name, namespace: 'default', body: { metadata: { labels: { gone: null } } } },
      strategic,
    );
    expect(pruned.metadata?.labels).toEqual({ team: 'ci' });
    const raw = await fetch(`${env.double.url}/api/v1/namespaces/default/pods/${name}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'text/plain' },
      body: '{}',
    });
    expect(raw.status).toBe(415);
    expect(raw.headers.get('content-type')).toBe('application/json');

    expect(await failure(core.readNamespacedPod({ name: 'nope', namespace: 'default' }))).toMatchObject({
      code: 404,
      message: 'pods "nope" not found',
    });
    expect(
      await failure(core.createNamespacedPod({ namespace: 'default', body: unschedulable(name) })),
    ).toMatchObject({
      code: 409,
      reason: 'AlreadyExists',
      message: `pods "${name}" already exists`,
    });
    const twice = unschedulable('twice');
    twice.spec!.containers.push({ name: 'c', image: 'svc/placeholder:latest' });
    expect((await failure(core.createNamespacedPod({ namespace: 'default', body: twice }))).message).toBe(
      'Pod "twice" is invalid: spec.containers[1].name: Duplicate value: "c"',
    );
    expect(
      await failure(
        core.createNamespacedPod({
          namespace: 'default',
          body: unschedulable('sa', { serviceAccountName: 'builder' }),
        }),
      ),
    ).toMatchObject({
      code: 403,
      message:
        'pods "sa" is forbidden: error looking up service account default/builder: serviceaccount "builder" not found',
    });
    expect(
      await failure(core.createNamespacedPod({ namespace: 'nowhere', body: unschedulable('x') })),
    ).toMatchObject({
      code: 404,
      message: 'namespaces "nowhere" not found',
    });

    const greedy = uniqueName('greedy');
    await core.createNamespacedPod({
      namespace: 'default',
      body: {
        metadata: { name: greedy },
        spec: {
          containers: [
            { name: 'c', image: 'svc/placeholder:latest', resources: { requests: { cpu: '1000' } } },
          ],
        },
      },
    });
    const starved = await waitForPod(
      core,
      'default',
      greedy,
      (p) => p.status?.conditions?.[0]?.reason === 'Unschedulable',
    );
    expect(starved.status?.conditions?.[0]?.message).toBe(
      '0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.',
    );
    for (const pod of [name, greedy]) await core.deleteNamespacedPod({ name: pod, namespace: 'default' });
    expect(env.double.pods().filter((p) => p.name === name || p.name === greedy)).toEqual([]);
  });

  it('checks the token, records unknown calls and answers discovery', async () => {
    const wrong = clientFor(env.double.kubeconfig.replace(TOKEN, 'wrong'));
    expect((await failure(wrong.core.listNamespace())).code).toBe(401);
    const anonymous = await fetch(`${env.double.url}/api/v1/namespaces`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
    const auth = { headers: { authorization: `Bearer ${TOKEN}` } };
    const unknown = await fetch(
      `${env.double.url}/apis/apps/v1/namespaces/default/deployments?limit=5`,
      auth,
    );
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({
      message: 'the server could not find the requested resource',
      reason: 'NotFound',
    });
    expect(env.double.unknownCalls()).toContain('GET /apis/apps/v1/namespaces/default/deployments?limit=5');
    const resources = (await (await fetch(`${env.double.url}/api/v1`, auth)).json()) as {
      resources: { name: string }[];
    };
    expect(resources.resources.map((r) => r.name)).toEqual(['namespaces', 'pods', 'pods/log', 'secrets']);
    expect(await (await fetch(`${env.double.url}/version`, auth)).json()).toMatchObject({
      major: '1',
      gitVersion: 'v1.31.0',
    });
    const namespaces = await env.client.core.listNamespace();
    expect(namespaces.items.map((n) => n.metadata?.name)).toEqual(
      expect.arrayContaining(['default', 'kube-system']),
    );
  });

  it('watches from a resourceVersion, expires old ones, sends bookmarks and applies selectors', async () => {
    const { core, kc } = env.client;
    const namespace = uniqueName('watch');
    await core.createNamespace({ body: { metadata: { name: namespace } } });
    const list = await core.listNamespacedSecret({ namespace });
    const from = list.metadata?.resourceVersion ?? '';
    for (const [secret, tier] of [
      ['a', 'gold'],
      ['b', 'silver'],
      ['c', 'bronze'],
    ] as const) {
      await core.createNamespacedSecret({
        namespace,
        body: { metadata: { name: secret, labels: { tier } }, stringData: { k: secret } },
      });
    }
    const stored = await core.readNamespacedSecret({ name: 'a', namespace });
    expect(stored.data).toEqual({ k: Buffer.from('a').toString('base64') });
    expect(stored.stringData).toBeUndefined();
    const selected = await core.listNamespacedSecret({
      namespace,
      labelSelector: 'tier in (gold,silver),tier!=silver',
    });
    expect(selected.items.map((s) => s.metadata?.name)).toEqual(['a']);
    expect(
      (await core.listNamespacedSecret({ namespace, fieldSelector: 'metadata.name=c' })).items,
    ).toHaveLength(1);
    const everywhere = await core.listSecretForAllNamespaces({ labelSelector: 'tier' });
    expect(everywhere.items.map((s) => `${s.metadata?.namespace}/${s.metadata?.name}`)).toEqual(
      ['a', 'b', 'c'].map((s) => `${namespace}/${s}`),
    );
    const one = await collect(kc, `/api/v1/namespaces/${namespace}/secrets/b`);
    await one.next((e) => e.type === 'ADDED');
    expect(one.events.map((e) => e.object.metadata?.name)).toEqual(['b']);
    one.stop();

    const replay = await collect(kc, `/api/v1/namespaces/${namespace}/secrets`, {
      resourceVersion: from,
      labelSelector: 'tier notin (bronze)',
      allowWatchBookmarks: true,
    });
    await replay.next((e) => e.type === 'BOOKMARK', 5000);
    expect(replay.events.filter((e) => e.type === 'ADDED').map((e) => e.object.metadata?.name)).toEqual([
      'a',
      'b',
    ]);
    await core.deleteCollectionNamespacedSecret({ namespace, labelSelector: 'tier=silver' });
    await replay.next((e) => e.type === 'DELETED' && e.object.metadata?.name === 'b');
    replay.stop();

    env.double.compactWatchHistory();
    const expired = await collect(kc, `/api/v1/namespaces/${namespace}/secrets`, { resourceVersion: from });
    const error = await expired.next((e) => e.type === 'ERROR');
    expect(error.object).toMatchObject({ kind: 'Status', code: 410, reason: 'Expired' });
    expect(String(error.object.message)).toMatch(
      new RegExp(`^too old resource version: ${from} \\(\\d+\\)$`),
    );
    await expired.done;
    await core.deleteNamespace({ name: namespace });
  });

  it('schedules around taints and resources, and again when the node or the pods change', async () => {
    const { core } = env.client;
    const scheduled = (name: string) =>
      waitForPod(core, 'default', name, (p) => p.spec?.nodeName !== undefined);
    const reason = async (name: string) =>
      (await waitForPod(core, 'default', name, (p) => p.status?.conditions?.[0]?.reason === 'Unschedulable'))
        .status?.conditions?.[0]?.message;
    const pod = (name: string, cpu: string): V1Pod => ({
      metadata: { name },
      spec: {
        restartPolicy: 'Never',
        terminationGracePeriodSeconds: 1,
        containers: [
          {
            name: 'c',
            image: 'svc/placeholder:latest',
            imagePullPolicy: 'IfNotPresent',
            resources: { requests: { cpu } },
          },
        ],
      },
    });
    env.double.updateNode({
      taints: [{ key: 'dedicated', value: 'ci', effect: 'NoSchedule' }],
      allocatable: { cpu: '1' },
    });
    try {
      const first = uniqueName('first');
      await core.createNamespacedPod({ namespace: 'default', body: pod(first, '600m') });
      expect(await reason(first)).toBe(
        '0/1 nodes are available: 1 node(s) had untolerated taint {dedicated: ci}. preemption: 0/1 nodes are ' +
          'available: 1 Preemption is not helpful for scheduling.',
      );
      env.double.updateNode({ taints: [] });
      await scheduled(first);
      const second = uniqueName('second');
      await core.createNamespacedPod({ namespace: 'default', body: pod(second, '600m') });
      expect(await reason(second)).toMatch(/^0\/1 nodes are available: 1 Insufficient cpu\. /);
      await core.deleteNamespacedPod({ name: first, namespace: 'default' });
      const placed = await scheduled(second);
      expect(placed.status?.conditions?.find((c) => c.type === 'PodScheduled')?.status).toBe('True');
      await core.deleteNamespacedPod({ name: second, namespace: 'default', gracePeriodSeconds: 0 });
    } finally {
      env.double.updateNode({ taints: [], allocatable: { cpu: '64' } });
    }
  });
});
