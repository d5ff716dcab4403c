import { describe, expect, it } from 'vitest';
import { compileYaml } from '../../../test/fixtures/pipelines/compile-input.js';
import { containerName, pullSecret, stagePod, stepSecret, type PodNames } from './pod-spec.js';

const PIPELINE = `
kind: pipeline
type: kubernetes
name: ci
image_pull_secrets: [dockerconfig]
services:
- name: db
  image: postgres
volumes:
- name: cache
  temp: { medium: memory }
steps:
- name: test
  image: golang
  environment:
    TOKEN: { from_secret: token }
    PLAIN: visible
  commands: [go test]
  volumes: [{ name: cache, path: /cache }]
- name: publish
  image: plugins/docker
  privileged: true
  settings: { password: { from_secret: docker_password } }
`;

const NAMES: PodNames = {
  pod: 'svc-run1',
  namespace: 'ci',
  secret: 'svc-run1',
  pullSecret: 'svc-run1-pull',
  placeholder: 'svc/placeholder',
  filesImage: undefined,
  labels: { 'io.svc.run': 'run1' },
};

describe('the pod spec of a stage', () => {
  it('makes every step a container of the placeholder image, in order, with the step’s command', async () => {
    const { spec } = await compileYaml(PIPELINE);
    const pod = stagePod(spec, NAMES, { DRONE_BUILD_STATUS: 'success' });
    expect(pod.metadata).toMatchObject({
      name: 'svc-run1',
      namespace: 'ci',
      annotations: { DRONE_BUILD_STATUS: 'success' },
    });
    const containers = pod.spec?.containers ?? [];
    expect(containers.map((c) => [c.name, c.image])).toEqual([
      ['s1-clone', 'svc/placeholder'],
      ['s2-db', 'svc/placeholder'],
      ['s3-test', 'svc/placeholder'],
      ['s4-publish', 'svc/placeholder'],
    ]);
    const test = containers[2];
    expect(test?.command).toEqual(['/bin/sh', '-c']);
    // The script first loads the status variables that change while the stage runs.
    expect(test?.args?.[0]).toMatch(/^if \[ -r \/run\/drone\/env \]; then\n/);
    expect(test?.args?.[0]).toContain('go test');
    expect(containers[3]?.securityContext).toEqual({ privileged: true });
    expect(pod.spec).toMatchObject({
      restartPolicy: 'Never',
      imagePullSecrets: [{ name: 'svc-run1-pull' }],
      hostAliases: [{ ip: '127.0.0.1', hostnames: ['db'] }],
    });
  });

  it('keeps secrets out of the pod spec: the stage’s Secret holds them, containers refer to it', async () => {
    const { spec } = await compileYaml(PIPELINE);
    const pod = stagePod(spec, NAMES, {});
    expect(JSON.stringify(pod)).not.toContain('s3cr3t-t0ken');
    expect(JSON.stringify(pod)).not.toContain('hunter2');
    const test = pod.spec?.containers[2];
    expect(test?.env).toContainEqual({ name: 'PLAIN', value: 'visible' });
    expect(test?.env).toContainEqual({
      name: 'TOKEN',
      valueFrom: { secretKeyRef: { name: 'svc-run1', key: 's3-test.TOKEN', optional: true } },
    });
    const secret = stepSecret(spec, NAMES);
    expect(secret).toMatchObject({ metadata: { name: 'svc-run1' }, type: 'Opaque' });
    expect(secret.stringData).toMatchObject({
      's3-test.TOKEN': 's3cr3t-t0ken',
      's4-publish.PLUGIN_PASSWORD': 'hunter2',
    });
    const pull = pullSecret(spec, NAMES);
    expect(pull?.type).toBe('kubernetes.io/dockerconfigjson');
    expect(JSON.parse(pull?.stringData?.['.dockerconfigjson'] ?? '{}')).toEqual({
      auths: { 'docker.io': { auth: Buffer.from('octocat:dockerhub-pass').toString('base64') } },
    });
  });

  it('shares the workspace and the status file, and maps volumes to emptyDir and hostPath', async () => {
    const { spec } = await compileYaml(PIPELINE);
    const pod = stagePod(spec, NAMES, {});
    expect(pod.spec?.volumes).toEqual([
      { name: 'svc-workspace', emptyDir: {} },
      {
        name: 'svc-status',
        downwardAPI: { items: [{ path: 'env', fieldRef: { fieldPath: 'metadata.annotations' } }] },
      },
      { name: 'v-cache', emptyDir: { medium: 'Memory' } },
    ]);
    expect(pod.spec?.containers[2]?.volumeMounts).toEqual([
      { name: 'svc-workspace', mountPath: spec.workspace.base },
      { name: 'svc-status', mountPath: '/run/drone', readOnly: true },
      { name: 'v-cache', mountPath: '/cache' },
    ]);
  });

  it('runs a step as its numeric user and group (Drone’s user: and group:)', async () => {
    const { spec } = await compileYaml(
      'kind: pipeline\ntype: kubernetes\nsteps:\n- name: a\n  image: alpine\n  user: 1000\n  group: 2000\n- name: b\n  image: alpine\n  group: 3000\n',
    );
    const containers = stagePod(spec, NAMES, {}).spec?.containers ?? [];
    expect(containers[1]?.securityContext).toEqual({ privileged: false, runAsUser: 1000, runAsGroup: 2000 });
    expect(containers[2]?.securityContext).toEqual({ privileged: false, runAsGroup: 3000 });
  });

  it('names containers validly even from names Kubernetes would refuse', async () => {
    const { spec } = await compileYaml('kind: pipeline\nsteps:\n- name: "Build & Test!"\n  image: alpine\n');
    const step = spec.steps[1];
    if (step === undefined) throw new Error('no step');
    expect(containerName(spec, step)).toBe('s2-build-test');
  });
});
