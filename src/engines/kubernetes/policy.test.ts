import { describe, expect, it } from 'vitest';
import type { MatchFacts } from '../../pipeline/match/conditions.js';
import { PUSH_FACTS } from './facts.case.js';
import { parsePolicies, PolicyFileError, selectPolicy } from './policy.js';

const FILE = `
kind: policy
name: production
match:
  repo: [acme/*]
  branch: { include: [main], exclude: [] }
  event: push
metadata:
  namespace: builds-prod
  labels: { team: platform }
  annotations: { owner: ops }
resources:
  request: { cpu: 250, memory: 256Mi }
  limit: { cpu: 2000, memory: 1GiB }
node_selector: { pool: ci }
service_account: builder
tolerations:
  - key: dedicated
    operator: Equal
    value: ci
    effect: NoSchedule
    toleration_seconds: 60
---
name: default
metadata:
  namespace: builds
`;

const facts = (fields: Partial<MatchFacts>): MatchFacts => ({ ...PUSH_FACTS, ...fields });

describe('the policy file (SVC_POLICY_FILE, Drone’s format)', () => {
  const policies = parsePolicies(FILE, 'policy.yml');

  it('reads every field of each policy', () => {
    expect(policies.map((p) => [p.name, p.line])).toEqual([
      ['production', 2],
      ['default', 24],
    ]);
    expect(policies[0]).toMatchObject({
      namespace: 'builds-prod',
      labels: { team: 'platform' },
      annotations: { owner: 'ops' },
      request: { cpu: 250, memory: 256 * 1024 * 1024 },
      limit: { cpu: 2000, memory: 1024 * 1024 * 1024 },
      nodeSelector: { pool: 'ci' },
      serviceAccount: 'builder',
      tolerations: [
        { key: 'dedicated', operator: 'Equal', value: 'ci', effect: 'NoSchedule', tolerationSeconds: 60 },
      ],
    });
  });

  it('gives a build the first matching policy, else the default one', () => {
    expect(selectPolicy(policies, facts({}))?.name).toBe('production');
    expect(selectPolicy(policies, facts({ repo: 'octocat/hello' }))?.name).toBe('default');
    expect(selectPolicy(policies, facts({ branch: 'dev' }))?.name).toBe('default');
    expect(selectPolicy(policies.slice(0, 1), facts({ event: 'tag' }))).toBeUndefined();
  });

  it('names the file, the policy’s line and the field of a mistake', () => {
    const wrong = (text: string): string => {
      try {
        parsePolicies(text, 'p.yml');
      } catch (error) {
        expect(error).toBeInstanceOf(PolicyFileError);
        return (error as Error).message;
      }
      return 'no error';
    };
    expect(wrong('name: a\nresources:\n  limit: { cpu: lots }\n')).toMatch(
      /^SVC_POLICY_FILE: p\.yml, policy at line 1: resources\.limit\.cpu: /,
    );
    expect(wrong('name: a\n---\nname: b\nmatch: { repos: [x] }\n')).toMatch(
      /^SVC_POLICY_FILE: p\.yml, policy at line 3: match: .*repos/,
    );
    expect(wrong('name: a\nresources: { request: { memory: huge } }\n')).toContain(
      '"huge" is not a memory size',
    );
    expect(wrong('name: a\n---\nname: a\n')).toContain('a policy named "a" comes earlier');
    expect(wrong('metadata: {}\n')).toMatch(/line 1: name: /);
    expect(wrong('name: [a\n')).toMatch(/^SVC_POLICY_FILE: p\.yml, line \d+: not valid YAML/);
  });
});
