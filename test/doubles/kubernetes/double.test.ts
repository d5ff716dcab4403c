/*
 * The Kubernetes double driven through @kubernetes/client-node 2.0.1 as svc's runner will drive a real
 * cluster: a Drone-style pod whose containers start as placeholders and run their step when their image
 * is swapped (strategic merge patch, then GET + PUT), logs followed line by line, localhost and volumes
 * shared between containers, graceful deletion down to Docker; and close() with pods still running.
 */
import { PatchStrategy, setHeaderOptions, type V1Container } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import {
  clientFor,
  collect,
  containerStatus,
  dockerObjects,
  followLog,
  instanceLabel,
  podLabel,
  uniqueName,
  useDouble,
  waitForPod,
} from './client-helpers.js';
import { startKubernetesDouble } from './index.js';

const env = useDouble({ token: 'svc-test-token' });
const strategic = setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch);

/** A step container as Drone's runner makes it: the placeholder image, the real command, shared volumes. */
function step(name: string, script: string, extra: Partial<V1Container> = {}): V1Container {
  return {
    name,
    image: 'svc/placeholder:latest',
    imagePullPolicy: 'IfNotPresent',
    command: ['/bin/sh', '-c'],
    args: [script],
    volumeMounts: [
      { name: 'workspace', mountPath: '/drone/src' },
      { name: 'status', mountPath: '/run/drone' },
    ],
    ...extra,
  };
}

describe('a Drone-style pod', () => {
  it('restarts a container whose image is swapped, runs its step, and is deleted down to Docker', async () => {
    const { core, kc } = env.client;
    const namespace = uniqueName('svc-e2e');
    const name = uniqueName('drone');
    await core.createNamespace({ body: { metadata: { name: namespace, labels: { 'io.svc.test': 'yes' } } } });
    await core.createNamespacedSecret({
      namespace,
      body: { metadata: { name }, type: 'Opaque', stringData: { password: 's3cret' } },
    });
    const watch = await collect(kc, `/api/v1/namespaces/${namespace}/pods`, {
      labelSelector: `io.drone.name=${name}`,
    });
    const created = await core.createNamespacedPod({
      namespace,
      body: {
        metadata: { name, labels: { 'io.drone.name': name }, annotations: { DRONE_BUILD_STATUS: 'pending' } },
        spec: {
          restartPolicy: 'Never',
          hostAliases: [{ ip: '127.0.0.1', hostnames: ['svc-alias'] }],
          volumes: [
            { name: 'workspace', emptyDir: {} },
            {
              name: 'status',
              downwardAPI: { items: [{ path: 'env', fieldRef: { fieldPath: 'metadata.annotations' } }] },
            },
          ],
          containers: [
            step(
              'step',
              'for i in 1 2 3; do echo "line $i"; usleep 200000; done; echo "password=$PASSWORD"; ' +
                'grep DRONE_BUILD_STATUS /run/drone/env; echo "to stderr" >&2; exit 3',
              {
                env: [
                  {
                    name: 'PASSWORD',
                    valueFrom: { secretKeyRef: { name, key: 'password', optional: true } },
                  },
                ],
              },
            ),
            step(
              'service',
              'mkdir -p /drone/src/www && echo served-over-localhost > /drone/src/www/index.html && ' +
                'exec busybox httpd -f -p 8080 -h /drone/src/www',
            ),
            step(
              'client',
              'for i in $(busybox seq 1 100); do busybox wget -q -O - http://svc-alias:8080/index.html 2>/dev/null && ' +
                'echo "host=$(hostname)" && exit 0; usleep 100000; done; exit 1',
            ),
          ],
        },
      },
    });
    expect(created.status?.phase).toBe('Pending');
    expect(created.metadata?.uid).toMatch(/^[0-9a-f-]{36}$/);
    await watch.next((e) => e.type === 'ADDED');
    const running = await waitForPod(core, namespace, name, (p) => p.status?.phase === 'Running');
    expect(running.spec?.nodeName).toBe('svc-kubernetes-double');
    expect(running.status?.podIP).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect(watch.events.filter((e) => e.type === 'MODIFIED').length).toBeGreaterThan(1);

    // Start the step: new image and the build status annotation in one strategic merge patch.
    await core.patchNamespacedPod(
      {
        name,
        namespace,
        body: {
          metadata: { annotations: { DRONE_BUILD_STATUS: 'success' } },
          spec: { containers: [{ name: 'step', image: 'local/busybox' }] },
        },
      },
      strategic,
    );
    await waitForPod(core, namespace, name, (p) => (containerStatus(p, 'step')?.restartCount ?? 0) === 1);
    const lines = await followLog(kc, namespace, name, 'step');
    // Docker keeps the order within stdout and within stderr, not between them: a line written to
    // stderr right after one on stdout may come first.
    const stderr = ['to stderr'];
    expect(lines.filter((line) => !stderr.includes(line))).toEqual([
      'line 1',
      'line 2',
      'line 3',
      'password=s3cret',
      'DRONE_BUILD_STATUS="success"',
    ]);
    expect(lines.filter((line) => stderr.includes(line))).toEqual(stderr);
    const finished = await waitForPod(
      core,
      namespace,
      name,
      (p) => containerStatus(p, 'step')?.state?.terminated !== undefined,
    );
    const stepStatus = containerStatus(finished, 'step');
    expect(stepStatus).toMatchObject({
      restartCount: 1,
      image: 'docker.io/local/busybox:latest',
      ready: false,
    });
    expect(stepStatus?.state?.terminated).toMatchObject({ exitCode: 3, reason: 'Error' });
    expect(stepStatus?.lastState?.terminated).toMatchObject({ exitCode: 0, reason: 'Completed' });
    expect(stepStatus?.containerID).toMatch(/^docker:\/\/[0-9a-f]{64}$/);
    for (const other of ['service', 'client']) {
      expect(containerStatus(finished, other)).toMatchObject({
        restartCount: 0,
        ready: true,
        image: 'docker.io/svc/placeholder:latest',
      });
    }

    // Start the service and its client together, as a GET + PUT (drone-runner-kube's launcher).
    const current = await core.readNamespacedPod({ name, namespace });
    for (const container of current.spec?.containers ?? []) {
      if (container.name !== 'step') container.image = 'local/busybox';
    }
    await core.replaceNamespacedPod({ name, namespace, body: current });
    const served = await waitForPod(core, namespace, name, (p) => {
      const status = containerStatus(p, 'client');
      return status?.restartCount === 1 && status.state?.terminated !== undefined;
    });
    expect(containerStatus(served, 'client')?.state?.terminated?.exitCode).toBe(0);
    expect(containerStatus(served, 'service')).toMatchObject({ restartCount: 1, ready: true });
    const clientLog = await core.readNamespacedPodLog({ name, namespace, container: 'client' });
    expect(clientLog).toBe(`served-over-localhost\nhost=${name}\n`);
    const view = env.double.pods().find((p) => p.name === name);
    expect(view?.sandbox).toMatch(/^[0-9a-f]{64}$/);
    expect(view?.containers.find((c) => c.name === 'step')?.dockerIds).toHaveLength(2);

    // Graceful deletion: deletionTimestamp first, containers stopped, then gone (from the API and Docker).
    const from = watch.events.length;
    const deleting = await core.deleteNamespacedPod({ name, namespace, gracePeriodSeconds: 1 });
    expect(deleting.metadata?.deletionTimestamp).toBeDefined();
    await watch.next(
      (e) => e.type === 'MODIFIED' && e.object.metadata?.deletionTimestamp !== undefined,
      5000,
      from,
    );
    await watch.next((e) => e.type === 'DELETED', 15_000, from);
    expect(await dockerObjects(podLabel(created.metadata?.uid))).toEqual({ containers: 0, volumes: 0 });
    watch.stop();
    await core.deleteNamespace({ name: namespace });
  }, 60_000);
});

describe('close()', () => {
  it('removes the containers and volumes of running pods', async () => {
    const other = await startKubernetesDouble({ sandbox: 'placeholder' });
    const label = instanceLabel(other);
    const { core } = clientFor(other.kubeconfig);
    await core.createNamespacedPod({
      namespace: 'default',
      body: {
        metadata: { name: 'lingering' },
        spec: {
          volumes: [{ name: 'scratch', emptyDir: { medium: 'Memory', sizeLimit: '16Mi' } }],
          containers: [
            step('c', 'sleep 600', { volumeMounts: [{ name: 'scratch', mountPath: '/scratch' }] }),
          ],
        },
      },
    });
    await waitForPod(core, 'default', 'lingering', (p) => p.status?.phase === 'Running');
    expect(await dockerObjects(label)).toEqual({ containers: 2, volumes: 1 });
    await other.close();
    expect(await dockerObjects(label)).toEqual({ containers: 0, volumes: 0 });
    expect(other.internalErrors()).toEqual([]);
  });
});
