import { describe, expect, it } from 'vitest';
import { compileYaml, pipelineOf } from '../../../test/fixtures/pipelines/compile-input.js';
import type { MatchFacts } from '../../pipeline/match/conditions.js';
import { namespaceRules } from './namespace-rules.js';
import { planPod, type PodDefaults } from './pod-plan.js';
import { parsePolicies } from './policy.js';
import { PUSH_FACTS } from './facts.case.js';

const PIPELINE = `
kind: pipeline
type: kubernetes
name: ci
metadata:
  namespace: team-a
  labels: { app: site }
  annotations: { note: hi }
node_selector: { disk: ssd }
tolerations:
- { key: ci, operator: Exists, effect: NoSchedule }
service_account_name: deployer
dns_config: { nameservers: [10.0.0.10], searches: [svc.local], options: [{ name: ndots, value: "2" }] }
host_aliases: [{ ip: 10.1.1.1, hostnames: [registry.local] }]
services:
- name: db
  image: postgres
steps:
- name: build
  image: golang
  commands: [go build]
  resources:
    requests: { cpu: 500, memory: 128MiB }
    limits: { cpu: 1000, memory: 256MiB }
`;

const DEFAULTS: PodDefaults = {
  namespace: 'ci',
  labels: { managed: 'svc' },
  annotations: { 'svc/default': 'yes' },
  nodeSelector: { pool: 'default' },
  serviceAccount: 'runner-default',
  requests: { cpu: 100, memory: 64 * 1024 * 1024 },
  limits: { cpu: 2000, memory: 0 },
  policies: [],
  rules: new Map(),
};

async function plan(yaml: string, defaults: Partial<PodDefaults> = {}, facts: Partial<MatchFacts> = {}) {
  const { spec } = await compileYaml(yaml);
  return planPod(pipelineOf(yaml), spec, { ...PUSH_FACTS, ...facts }, { ...DEFAULTS, ...defaults });
}

describe('the pod of a kubernetes stage', () => {
  it('takes the pipeline’s fields over the runner’s defaults, and adds default labels and annotations', async () => {
    const result = await plan(PIPELINE);
    if (!result.ok) throw new Error(result.error);
    expect(result.spec.pod).toMatchObject({
      namespace: 'team-a',
      perStage: false,
      labels: { managed: 'svc', app: 'site' },
      annotations: { 'svc/default': 'yes', note: 'hi' },
      nodeSelector: { disk: 'ssd' },
      tolerations: [{ key: 'ci', operator: 'Exists', effect: 'NoSchedule', value: '', tolerationSeconds: 0 }],
      serviceAccountName: 'deployer',
      dnsConfig: {
        nameservers: ['10.0.0.10'],
        searches: ['svc.local'],
        options: [{ name: 'ndots', value: '2' }],
      },
      hostAliases: [{ ip: '10.1.1.1', hostnames: ['registry.local'] }],
    });
    const byName = Object.fromEntries(
      result.spec.steps.map((step) => [step.name, result.spec.pod?.resources[step.id]]),
    );
    // The step's own limit under the runner's; its request as asked; defaults for the others.
    expect(byName.build).toEqual({
      requests: { cpu: 500, memory: 128 * 1024 * 1024 },
      limits: { cpu: 1000, memory: 256 * 1024 * 1024 },
    });
    expect(byName.db).toEqual({
      requests: { cpu: 100, memory: 64 * 1024 * 1024 },
      limits: { cpu: 2000, memory: 0 },
    });
  });

  it('uses the defaults when the pipeline says nothing, and svc- for a namespace per execution', async () => {
    const bare = 'kind: pipeline\ntype: kubernetes\nsteps:\n- name: a\n  image: alpine\n';
    const result = await plan(bare, { namespace: 'svc-' });
    if (!result.ok) throw new Error(result.error);
    expect(result.spec.pod).toMatchObject({
      namespace: '',
      perStage: true,
      nodeSelector: { pool: 'default' },
      serviceAccountName: 'runner-default',
      tolerations: [],
    });
    const plain = await plan(bare, { namespace: '' });
    expect(plain.ok && plain.spec.pod?.namespace).toBe('default');
  });

  it('lets the matching policy win: namespace, node selector, account, tolerations, resources; labels added', async () => {
    const policies = parsePolicies(
      `name: prod
match: { repo: [acme/*] }
metadata: { namespace: prod-builds, labels: { tier: prod } }
resources: { request: { cpu: 50 }, limit: { memory: 100Mi } }
node_selector: { pool: prod }
service_account: prod-sa
tolerations: [{ key: prod, operator: Exists }]
`,
      'policy.yml',
    );
    const result = await plan(PIPELINE, { policies });
    if (!result.ok) throw new Error(result.error);
    const pod = result.spec.pod;
    expect(pod).toMatchObject({
      namespace: 'prod-builds',
      labels: { managed: 'svc', app: 'site', tier: 'prod' },
      nodeSelector: { pool: 'prod' },
      serviceAccountName: 'prod-sa',
      tolerations: [{ key: 'prod', operator: 'Exists' }],
    });
    const build = result.spec.steps.find((step) => step.name === 'build');
    expect(pod?.resources[build?.id ?? '']).toEqual({
      requests: { cpu: 50, memory: 100 * 1024 * 1024 },
      limits: { cpu: 1000, memory: 100 * 1024 * 1024 },
    });
    const arm = await plan(`${PIPELINE}platform: { os: linux, arch: arm64 }\n`, { policies });
    expect(arm.ok && arm.spec.pod?.nodeSelector).toEqual({
      'kubernetes.io/os': 'linux',
      'kubernetes.io/arch': 'arm64',
      pool: 'prod',
    });
    const other = await plan(PIPELINE, { policies }, { repo: 'octocat/site' });
    expect(other.ok && other.spec.pod?.namespace).toBe('team-a');
  });

  it('refuses a namespace the rules keep from the repository, naming the rule and the line', async () => {
    const rules = namespaceRules(
      { path: '/etc/svc/rules.yml', rules: { 'team-a': ['acme/infra', 'ops/*'] } },
      null,
    );
    const result = await plan(PIPELINE, { rules });
    expect(result).toEqual({
      ok: false,
      error:
        'line 5, column 1: the pipeline may not use the namespace "team-a": SVC_NAMESPACE_RULES_FILE (/etc/svc/rules.yml) allows it only to acme/infra, ops/*, not to acme/site',
    });
    const allowed = await plan(PIPELINE, { rules }, { repo: 'ops/tools' });
    expect(allowed.ok).toBe(true);
    // SVC_NAMESPACE_RULES replaces the file's rule of the same namespace.
    const replaced = namespaceRules({ path: 'f', rules: { 'team-a': ['nobody/*'] } }, { 'team-a': 'acme/*' });
    expect((await plan(PIPELINE, { rules: replaced })).ok).toBe(true);
  });
});
