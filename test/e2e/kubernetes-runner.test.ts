/*
 * `svc runner kubernetes` end to end: `svc server` with the GitHub double, `svc runner kubernetes`
 * against the Kubernetes double, whose pods are real containers of the private engine (on the test
 * git server's network, their pod network). A two-stage push builds green; then, with a policy file,
 * namespace rules and a namespace per execution: the policy shapes the pod, a restricted namespace
 * is refused naming its rule, an unschedulable pod and an image that cannot be pulled are explained
 * in the log, and a SIGKILLed runner's pod and namespace are deleted when it starts again; a cache
 * kept from one build to the next and artifacts handed from one stage to the next (issue 34).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerForTests } from '../../src/engines/docker/testing.case.js';
import { startKubernetesDouble, type KubernetesDouble } from '../doubles/kubernetes/index.js';
import { startGitServer, type GitServer } from '../support/git-server.js';
import { ensurePluginImage } from '../support/images.js';
import { clusterPipeline, expectClusterBuild, SECRET_VALUE } from './cluster-pipeline.js';
import { HostE2E, REPO, type HostBuild } from './host-e2e.js';
import { startSvcRunner, waitFor, type SvcProcess } from './system.js';

const docker = await dockerForTests(['local/busybox', 'svc/git', 'svc/placeholder']);
const RUNNER = `e2e-kube-${process.pid}`;

const POLICY = `name: octocat
match:
  repo: [octocat/*]
metadata:
  labels: { policy: applied }
resources:
  limit: { memory: 256Mi }
`;

const ONE_STEP = (fields: string, image = 'local/busybox', commands = '[ "echo waiting", "sleep 60" ]') =>
  `kind: pipeline
type: kubernetes
name: one
clone: { disable: true }
${fields}steps:
- name: step
  image: ${image}
  pull: if-not-exists
  commands: ${commands}
`;

/** Two stages: a step with a cache (a workspace path and an absolute one) and artifacts; a stage that fetches them. */
const FILES_PIPELINE = `kind: pipeline
type: kubernetes
name: build
clone: { disable: true }
steps:
- name: make
  image: local/busybox
  pull: if-not-exists
  cache:
    key: deps
    paths: [deps, /root/.tool]
  artifacts:
    paths: [dist/**]
  commands:
  - test -f deps/made && echo "warm=$(cat deps/made) tool=$(cat /root/.tool/t)" || echo cold
  - mkdir -p deps dist && echo "$DRONE_BUILD_NUMBER" > deps/made && echo t > /root/.tool/t
  - echo "app of $DRONE_BUILD_NUMBER" > dist/app
---
kind: pipeline
type: kubernetes
name: deploy
clone: { disable: true }
depends_on: [build]
artifacts: { from: [build] }
steps:
- name: ship
  image: local/busybox
  pull: if-not-exists
  commands: [ "cat dist/app" ]
`;

/** The pod of a running stage as the API shows it (namespace, labels, a container's memory limit). */
interface ApiPod {
  metadata: { name: string; namespace: string; labels?: Record<string, string> };
  spec: { containers: { name: string; resources?: { limits?: Record<string, string> } }[] };
}

describe.skipIf(docker.skip)('svc runner kubernetes: a pod per stage', () => {
  let cluster: KubernetesDouble;
  let git: GitServer;
  let e2e: HostE2E;
  let runner: SvcProcess | undefined;
  let kubeconfig = '';
  let files = '';
  const stepStatus = (name: string) => (b: HostBuild) =>
    b.stages?.[0]?.steps?.find((s) => s.name === name)?.status === 'running';
  const stagePods = () => cluster.pods().filter((pod) => pod.name.startsWith('svc-stage-'));

  beforeAll(async () => {
    ensurePluginImage();
    git = await startGitServer(docker.docker!, { 'io.svc.owner': RUNNER });
    cluster = await startKubernetesDouble({ podNetwork: git.network, retryFailedImageSwap: true });
    files = mkdtempSync(join(tmpdir(), 'svc-e2e-kube-'));
    kubeconfig = join(files, 'kubeconfig');
    writeFileSync(kubeconfig, cluster.kubeconfig);
    writeFileSync(join(files, 'policy.yml'), POLICY);
    e2e = await HostE2E.start(
      'octocat',
      { token: SECRET_VALUE },
      {
        repository: {
          url: git.cloneUrl(REPO),
          commit: (committed, message) => git.commit(REPO, 'main', committed, message),
        },
      },
    );
    runner = startSvcRunner('kubernetes', e2e.port, RUNNER, { KUBECONFIG: kubeconfig });
  }, 120_000);

  afterAll(async () => {
    await runner?.stop();
    await e2e?.stop();
    await cluster?.close();
    await git?.close();
  });

  it('builds a two-stage push green: services, a secret, an ignored failure, a plugin; then deletes the pods', async () => {
    const pushed = { 'README.md': 'hello from the cluster\n', '.drone.yml': clusterPipeline('kubernetes') };
    const sha = await e2e.push(pushed, 'two stages on Kubernetes');
    const build = await e2e.build(1);
    await expectClusterBuild(e2e, build, sha);
    await waitFor('the pods deleted', () => Promise.resolve(stagePods().length === 0 ? true : undefined));
    // Each stage's Secret held the token; both are gone with their pods.
    expect(cluster.secrets().filter((secret) => secret.metadata.name?.startsWith('svc-stage-'))).toEqual([]);
  });

  describe('with a policy, namespace rules and a namespace per execution', () => {
    beforeAll(async () => {
      await runner?.stop();
      runner = startSvcRunner('kubernetes', e2e.port, RUNNER, {
        KUBECONFIG: kubeconfig,
        SVC_NAMESPACE_DEFAULT: 'svc-',
        SVC_POLICY_FILE: join(files, 'policy.yml'),
        SVC_NAMESPACE_RULES: 'restricted:acme/*',
        SVC_STEP_START_TIMEOUT: '8s',
      });
    });

    it('runs the stage in a namespace of its own, shaped by the policy, and deletes the namespace', async () => {
      await e2e.push(
        { '.drone.yml': ONE_STEP('', 'local/busybox', '[ "echo in my namespace", "sleep 3" ]') },
        'policy',
      );
      await e2e.build(2, stepStatus('step'));
      const [running] = stagePods();
      expect(running?.namespace).toMatch(/^svc-stage-/);
      const answer = await fetch(
        `${cluster.url}/api/v1/namespaces/${running?.namespace}/pods/${running?.name}`,
      );
      const pod = (await answer.json()) as ApiPod;
      expect(pod.metadata.labels).toMatchObject({ policy: 'applied', 'io.svc.owner': RUNNER });
      expect(pod.spec.containers[0]?.resources?.limits).toMatchObject({ memory: String(256 * 1024 * 1024) });
      const build = await e2e.build(2);
      expect(build.status).toBe('success');
      expect(await e2e.log(build, 'step')).toContain('in my namespace');
      await waitFor('the namespace deleted', () =>
        Promise.resolve(
          cluster.namespaces().some((ns) => ns.metadata.name === running?.namespace) ? undefined : true,
        ),
      );
    });

    it('refuses a namespace the rules keep for other repositories, naming the rule', async () => {
      await e2e.push({ '.drone.yml': ONE_STEP('metadata: { namespace: restricted }\n') }, 'restricted');
      const build = await e2e.build(3);
      const stage = build.stages?.[0] as { status: string; error?: string } | undefined;
      expect(stage?.status).toBe('error');
      expect(stage?.error).toBe(
        'line 5, column 1: the pipeline may not use the namespace "restricted": SVC_NAMESPACE_RULES allows it only to acme/*, not to octocat/app',
      );
    });

    it('explains an unschedulable pod and an image that cannot be pulled in the log, then fails the step', async () => {
      await e2e.push({ '.drone.yml': ONE_STEP('node_selector: { disk: ssd }\n') }, 'unschedulable');
      const unschedulable = await e2e.build(4);
      expect(unschedulable.status).toBe('error');
      expect((await e2e.log(unschedulable, 'step')).join('\n')).toMatch(
        /^svc: Kubernetes cannot schedule the pod yet: 0\/1 nodes are available: 1 node\(s\) didn't match Pod's node affinity\/selector/m,
      );
      await e2e.push({ '.drone.yml': ONE_STEP('', 'svc-test/no-such-image:1') }, 'unpullable');
      const unpullable = await e2e.build(5);
      expect(unpullable.status).toBe('error');
      expect((await e2e.log(unpullable, 'step')).join('\n')).toMatch(
        /^svc: Kubernetes cannot pull svc-test\/no-such-image:1 \((ErrImagePull|ImagePullBackOff)\): /m,
      );
    });

    it('deletes the pod and namespace of a runner SIGKILLed mid-stage when it starts again', async () => {
      await e2e.push({ '.drone.yml': ONE_STEP('') }, 'a runner that dies');
      await e2e.build(6, stepStatus('step'));
      expect(stagePods()).toHaveLength(1);
      await runner?.kill();
      runner = startSvcRunner('kubernetes', e2e.port, RUNNER, {
        KUBECONFIG: kubeconfig,
        SVC_NAMESPACE_DEFAULT: 'svc-',
      });
      await waitFor(
        'the leftover pod deleted',
        () => Promise.resolve(stagePods().length === 0 ? true : undefined),
        60_000,
      );
      await waitFor('the leftover namespace deleted', () =>
        Promise.resolve(
          cluster.namespaces().some((ns) => ns.metadata.name?.startsWith('svc-stage-')) ? undefined : true,
        ),
      );
      expect(cluster.unknownCalls()).toEqual([]);
    });

    it('keeps a cache from one build to the next and hands a stage’s artifacts to the next stage', async () => {
      await e2e.push({ '.drone.yml': FILES_PIPELINE }, 'caches and artifacts');
      const first = await e2e.build(7);
      const make = await e2e.log(first, 'make');
      expect(first.status, make.join('\n')).toBe('success');
      expect(make).toContain('cold');
      expect(make.join('\n')).toMatch(/^cache: saved "deps" \(deps, \/root\/\.tool\), /m);
      expect(make.join('\n')).toMatch(/^artifacts: uploaded "make", 1 file, /m);
      expect(await e2e.log(first, 'ship', 2)).toEqual(
        expect.arrayContaining(['artifacts: fetched those of stage "build" into the workspace', 'app of 7']),
      );
      await e2e.push({ 'README.md': 'again\n' }, 'warm');
      const second = await e2e.build(8);
      const warm = await e2e.log(second, 'make');
      expect(second.status, warm.join('\n')).toBe('success');
      expect(warm.join('\n')).toMatch(/^cache: restored "deps", /m);
      expect(warm).toContain('warm=7 tool=t');
      expect(cluster.unknownCalls()).toEqual([]);
    });
  });
});
