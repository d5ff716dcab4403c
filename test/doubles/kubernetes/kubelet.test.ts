/*
 * The double's kubelet through the API: a failed image swap under restartPolicy Never (the container
 * stays stopped, as a real kubelet leaves it), namespace deletion down to Docker, and a pod exercising
 * init containers, hostPath/secret/downwardAPI volumes, `$(VAR)` expansion, securityContext and limits.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PatchStrategy, setHeaderOptions, type V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import {
  collect,
  containerStatus,
  dockerObjects,
  failure,
  podLabel,
  uniqueName,
  useDouble,
  waitForPod,
} from './client-helpers.js';

const env = useDouble({ backOff: { initialMs: 400, maxMs: 2000 } });

describe('the kubelet', () => {
  it('keeps a container stopped when its new image fails under Never, and deletes a namespace', async () => {
    const { core, kc } = env.client;
    const namespace = uniqueName('doomed');
    await core.createNamespace({ body: { metadata: { name: namespace } } });
    await core.createNamespacedSecret({
      namespace,
      body: { metadata: { name: 'kept' }, stringData: { a: 'b' } },
    });
    const placeholder = {
      image: 'svc/placeholder:latest',
      imagePullPolicy: 'IfNotPresent',
      command: ['/bin/sh', '-c'],
      args: ['true'],
    };
    const created = await core.createNamespacedPod({
      namespace,
      body: {
        metadata: { name: 'p' },
        spec: {
          restartPolicy: 'Never',
          containers: [
            { name: 'a', ...placeholder },
            { name: 'b', ...placeholder },
          ],
        },
      },
    });
    await waitForPod(core, namespace, 'p', (p) => p.status?.phase === 'Running');
    await core.patchNamespacedPod(
      {
        name: 'p',
        namespace,
        body: { spec: { containers: [{ name: 'a', image: 'svc-k8s-test/missing:3' }] } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
    );
    const stopped = await waitForPod(
      core,
      namespace,
      'p',
      (p) => containerStatus(p, 'a')?.state?.terminated !== undefined,
    );
    const failed = () =>
      env.double.pods().find((p) => p.uid === created.metadata?.uid)?.containers[0]?.lastFailure;
    for (let i = 0; i < 100 && failed() === undefined; i++)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(failed()?.reason).toBe('ErrImagePull');
    const after = await core.readNamespacedPod({ name: 'p', namespace });
    for (const pod of [stopped, after]) {
      expect(containerStatus(pod, 'a')).toMatchObject({
        restartCount: 0,
        image: 'docker.io/svc/placeholder:latest',
      });
      expect(containerStatus(pod, 'a')?.state?.terminated).toMatchObject({
        exitCode: 0,
        reason: 'Completed',
      });
    }
    expect(after.status?.phase).toBe('Running');

    const watch = await collect(kc, '/api/v1/namespaces', { fieldSelector: `metadata.name=${namespace}` });
    const terminating = (await core.deleteNamespace({ name: namespace })) as unknown as {
      status?: { phase?: string };
    };
    expect(terminating.status?.phase).toBe('Terminating');
    expect(
      await failure(core.createNamespacedSecret({ namespace, body: { metadata: { name: 'late' } } })),
    ).toMatchObject({
      code: 403,
      message: `secrets "late" is forbidden: unable to create new content in namespace ${namespace} because it is being terminated`,
    });
    await watch.next((e) => e.type === 'DELETED', 15_000);
    watch.stop();
    expect(await failure(core.readNamespace({ name: namespace }))).toMatchObject({
      code: 404,
      message: `namespaces "${namespace}" not found`,
    });
    expect(
      (await core.listPodForAllNamespaces({ fieldSelector: `metadata.namespace=${namespace}` })).items,
    ).toEqual([]);
    expect(await dockerObjects(podLabel(created.metadata?.uid))).toEqual({ containers: 0, volumes: 0 });
  });

  it('runs init containers first, then a container with volumes, expanded env, its user and limits', async () => {
    const { core } = env.client;
    const host = mkdtempSync(join(tmpdir(), 'svc-k8s-hostpath-'));
    try {
      await core.createNamespacedSecret({
        namespace: 'default',
        body: { metadata: { name: 'files' }, stringData: { key: 'from-secret-volume' } },
      });
      const init = (name: string) => ({
        name,
        image: 'local/busybox:latest',
        command: ['sh', '-c', `echo ${name} >> /host/order`],
        volumeMounts: [{ name: 'host', mountPath: '/host' }],
      });
      const pod: V1Pod = {
        metadata: { name: 'features', labels: { app: 'demo' } },
        spec: {
          restartPolicy: 'Never',
          volumes: [
            { name: 'host', hostPath: { path: join(host, 'made'), type: 'DirectoryOrCreate' } },
            { name: 'secret', secret: { secretName: 'files' } },
            {
              name: 'info',
              downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }] },
            },
          ],
          initContainers: [init('first'), init('second')],
          containers: [
            {
              name: 'main',
              image: 'local/busybox:latest',
              workingDir: '/host',
              command: ['sh', '-c'],
              args: [
                'cat order; echo "B=$B"; echo "pod=$(POD) node=$NODE"; pwd; id -u; cat /secret/key; echo; ' +
                  'cat /info/labels; echo; cat /sys/fs/cgroup/memory/memory.limit_in_bytes',
              ],
              env: [
                { name: 'A', value: 'x' },
                { name: 'B', value: '$(A)-y $$(A) $(UNDEFINED)' },
                { name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
                { name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
              ],
              securityContext: { runAsUser: 1234 },
              resources: { limits: { memory: '64Mi', cpu: '500m' } },
              volumeMounts: [
                { name: 'host', mountPath: '/host' },
                { name: 'secret', mountPath: '/secret' },
                { name: 'info', mountPath: '/info' },
              ],
            },
          ],
        },
      };
      await core.createNamespacedPod({ namespace: 'default', body: pod });
      const done = await waitForPod(
        core,
        'default',
        'features',
        (p) => p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed',
      );
      const log = await core.readNamespacedPodLog({ name: 'features', namespace: 'default' });
      expect(log.split('\n')).toEqual([
        'first',
        'second',
        'B=x-y $(A) $(UNDEFINED)',
        'pod=features node=svc-kubernetes-double',
        '/host',
        '1234',
        'from-secret-volume',
        'app="demo"',
        String(64 * 1024 * 1024),
        '',
      ]);
      expect(done.status?.phase).toBe('Succeeded');
      expect(done.status?.qosClass).toBe('Burstable');
      expect(done.status?.initContainerStatuses?.map((s) => s.state?.terminated?.reason)).toEqual([
        'Completed',
        'Completed',
      ]);
      expect(done.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({
        status: 'False',
        reason: 'PodCompleted',
      });
      expect(readFileSync(join(host, 'made', 'order'), 'utf8')).toBe('first\nsecond\n');
      await core.deleteNamespacedPod({ name: 'features', namespace: 'default' });
      await core.deleteNamespacedSecret({ name: 'files', namespace: 'default' });
    } finally {
      rmSync(host, { recursive: true, force: true });
    }
  });
});
