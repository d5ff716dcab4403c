/*
 * Images through the double's kubelet: pull failures, back-off, Never and invalid references and
 * configuration errors as container states (with the log API's 400s for them), recovery once a missing
 * secret appears, and a real pull with imagePullSecrets credentials from a registry with basic auth.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { startRegistry } from '../../../src/engines/docker/api/registry.case.js';
import {
  collect,
  containerStatus,
  dockerConfig,
  failure,
  goneFromDocker,
  uniqueName,
  useDouble,
  waitForPod,
  waiting,
} from './client-helpers.js';

const env = useDouble({ backOff: { initialMs: 400, maxMs: 2000 } });

describe('images', () => {
  it('reports image and configuration problems as the kubelet does', async () => {
    const { core, kc } = env.client;
    const name = uniqueName('troubled');
    await core.createNamespacedSecret({
      namespace: 'default',
      body: {
        metadata: { name: 'regcred' },
        type: 'kubernetes.io/dockerconfigjson',
        stringData: { '.dockerconfigjson': dockerConfig('https://index.docker.io/v1/', 'me', 'pw') },
      },
    });
    const late = uniqueName('late');
    const watch = await collect(kc, '/api/v1/namespaces/default/pods', {
      fieldSelector: `metadata.name=${name}`,
    });
    const created = await core.createNamespacedPod({
      namespace: 'default',
      body: {
        metadata: { name },
        spec: {
          restartPolicy: 'Never',
          imagePullSecrets: [{ name: 'regcred' }],
          containers: [
            { name: 'missing', image: 'svc-k8s-test/missing:1' },
            { name: 'never', image: 'svc-k8s-test/missing:2', imagePullPolicy: 'Never' },
            { name: 'invalid', image: 'BUSYBOX' },
            {
              name: 'config',
              image: 'local/busybox:latest',
              imagePullPolicy: 'IfNotPresent',
              command: ['sh', '-c', 'echo "token=$TOKEN"'],
              env: [{ name: 'TOKEN', valueFrom: { secretKeyRef: { name: late, key: 'token' } } }],
            },
          ],
        },
      },
    });
    const pulling = await watch.next((e) => waiting(e, 'missing')?.reason === 'ErrImagePull');
    expect(waiting(pulling, 'missing')?.message).toMatch(
      /^rpc error: code = Unknown desc = Error response from daemon: /,
    );
    const backOff = await watch.next((e) => waiting(e, 'missing')?.reason === 'ImagePullBackOff');
    expect(waiting(backOff, 'missing')?.message).toBe('Back-off pulling image "svc-k8s-test/missing:1"');
    const pod = await waitForPod(
      core,
      'default',
      name,
      (p) => containerStatus(p, 'config')?.state?.waiting !== undefined,
    );
    expect(pod.status?.phase).toBe('Pending');
    expect(containerStatus(pod, 'never')?.state?.waiting).toEqual({
      reason: 'ErrImageNeverPull',
      message: 'Container image "svc-k8s-test/missing:2" is not present with pull policy of Never',
    });
    expect(containerStatus(pod, 'invalid')?.state?.waiting).toEqual({
      reason: 'InvalidImageName',
      message:
        'Failed to apply default image tag "BUSYBOX": couldn\'t parse image reference "BUSYBOX": invalid reference ' +
        'format: repository name must be lowercase',
    });
    expect(containerStatus(pod, 'config')?.state?.waiting).toEqual({
      reason: 'CreateContainerConfigError',
      message: `secret "${late}" not found`,
    });
    expect(containerStatus(pod, 'missing')?.image).toBe('docker.io/svc-k8s-test/missing:1');
    const attempts = env.double
      .pullAttempts()
      .filter((a) => a.pod === `default/${name}` && a.container === 'missing');
    expect(attempts[0]).toMatchObject({
      image: 'docker.io/svc-k8s-test/missing:1',
      imagePullSecrets: ['regcred'],
      credentialsFrom: 'regcred',
      ok: false,
    });

    const logError = async (container?: string) =>
      (
        await failure(
          core.readNamespacedPodLog({
            name,
            namespace: 'default',
            ...(container === undefined ? {} : { container }),
          }),
        )
      ).message;
    expect(await logError()).toBe(
      `a container name must be specified for pod ${name}, choose one of: [missing never invalid config]`,
    );
    expect(await logError('invalid')).toBe(
      `container "invalid" in pod "${name}" is waiting to start: InvalidImageName`,
    );
    expect(await logError('missing')).toMatch(
      new RegExp(
        `^container "missing" in pod "${name}" is waiting to start: (image can't be pulled|trying and failing to pull image)$`,
      ),
    );
    expect(await logError('config')).toBe(
      `container "config" in pod "${name}" is waiting to start: CreateContainerConfigError`,
    );

    // The secret appears without the key, then with it: the container starts once it can.
    await core.createNamespacedSecret({
      namespace: 'default',
      body: { metadata: { name: late }, stringData: { other: 'x' } },
    });
    await waitForPod(
      core,
      'default',
      name,
      (p) =>
        containerStatus(p, 'config')?.state?.waiting?.message ===
        `couldn't find key token in Secret default/${late}`,
    );
    await core.deleteNamespacedSecret({ name: late, namespace: 'default' });
    await core.createNamespacedSecret({
      namespace: 'default',
      body: { metadata: { name: late }, stringData: { token: 'abc' } },
    });
    await waitForPod(
      core,
      'default',
      name,
      (p) => containerStatus(p, 'config')?.state?.terminated?.exitCode === 0,
    );
    expect(await core.readNamespacedPodLog({ name, namespace: 'default', container: 'config' })).toBe(
      'token=abc\n',
    );

    const removed = await core.deleteNamespacedPod({ name, namespace: 'default', gracePeriodSeconds: 0 });
    expect(removed.metadata?.name).toBe(name);
    await watch.next((e) => e.type === 'DELETED');
    watch.stop();
    await goneFromDocker(created.metadata?.uid);
    for (const secret of ['regcred', late])
      await core.deleteNamespacedSecret({ name: secret, namespace: 'default' });
  }, 30_000);

  it('pulls with the credentials of the imagePullSecrets for the registry', async () => {
    const { core } = env.client;
    const registry = await startRegistry('octo', 'p4ss');
    try {
      await core.createNamespacedSecret({
        namespace: 'default',
        body: {
          metadata: { name: 'registry' },
          type: 'kubernetes.io/dockerconfigjson',
          stringData: { '.dockerconfigjson': dockerConfig(registry.address, 'octo', 'p4ss') },
        },
      });
      await core.createNamespacedPod({
        namespace: 'default',
        body: {
          metadata: { name: 'pulled' },
          spec: {
            restartPolicy: 'Never',
            imagePullSecrets: [{ name: 'registry' }],
            containers: [{ name: 'hello', image: registry.image }],
          },
        },
      });
      // The image holds only a text file: it is pulled, but cannot start.
      const pod = await waitForPod(
        core,
        'default',
        'pulled',
        (p) => containerStatus(p, 'hello')?.state?.terminated !== undefined,
      );
      const status = containerStatus(pod, 'hello');
      expect(status?.state?.terminated).toMatchObject({ exitCode: 128, reason: 'StartError' });
      expect(status?.image).toBe(registry.image);
      expect(status?.imageID).toMatch(
        new RegExp(`^docker-pullable://${registry.address}/svc/hello@sha256:[0-9a-f]{64}$`),
      );
      expect(env.double.pullAttempts().filter((a) => a.pod === 'default/pulled')).toEqual([
        expect.objectContaining({
          image: registry.image,
          credentialsFrom: 'registry',
          imagePullSecrets: ['registry'],
          ok: true,
        }),
      ]);
      await core.deleteNamespacedPod({ name: 'pulled', namespace: 'default' });
      await core.deleteNamespacedSecret({ name: 'registry', namespace: 'default' });
    } finally {
      await registry.close();
      execFileSync('docker', ['rmi', '-f', registry.image], { stdio: 'ignore' });
    }
  });
});
