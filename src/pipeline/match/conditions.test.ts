import { describe, expect, it } from 'vitest';
import { NO_CONDITIONS } from '../decode/conditions.js';
import type { Condition, Conditions } from '../types.js';
import {
  matchCondition,
  matchConditions,
  matchFacts,
  statusRunPolicy,
  type MatchFacts,
} from './conditions.js';

const push: MatchFacts = {
  branch: 'main',
  event: 'push',
  ref: 'refs/heads/main',
  repo: 'octocat/hello-world',
  instance: 'ci.example.com',
  target: '',
  cron: '',
  action: '',
};

function when(conditions: Partial<Record<keyof Conditions, Partial<Condition>>>): Conditions {
  const result: Record<string, Condition> = { ...NO_CONDITIONS };
  for (const [name, condition] of Object.entries(conditions)) {
    result[name] = { include: condition.include ?? [], exclude: condition.exclude ?? [] };
  }
  return result as Conditions;
}

describe('matchCondition', () => {
  it.each([
    [{ include: [], exclude: [] }, 'anything', true],
    [{ include: ['main'], exclude: [] }, 'main', true],
    [{ include: ['main'], exclude: [] }, 'develop', false],
    [{ include: ['main', 'release/*'], exclude: [] }, 'release/2', true],
    [{ include: [], exclude: ['main'] }, 'main', false],
    [{ include: [], exclude: ['main'] }, 'develop', true],
    [{ include: ['release/*'], exclude: ['release/old'] }, 'release/old', false],
    [{ include: ['release/*'], exclude: ['release/old'] }, 'release/new', true],
    // a condition with includes needs a value: a cron-only step does not run on a push
    [{ include: ['nightly'], exclude: [] }, '', false],
  ])('%j with %j: %s', (condition, value, expected) => {
    expect(matchCondition(condition, value)).toBe(expected);
  });
});

describe('matchConditions', () => {
  it('matches anything without conditions', () => {
    expect(matchConditions(NO_CONDITIONS, push)).toBe(true);
  });

  it('requires every condition to hold', () => {
    expect(matchConditions(when({ branch: { include: ['main'] }, event: { include: ['push'] } }), push)).toBe(
      true,
    );
    expect(matchConditions(when({ branch: { include: ['main'] }, event: { include: ['tag'] } }), push)).toBe(
      false,
    );
  });

  it.each([
    ['branch', 'main'],
    ['event', 'push'],
    ['ref', 'refs/heads/*'],
    ['repo', 'octocat/*'],
    ['instance', 'ci.example.com'],
  ] as const)('evaluates %s', (name, pattern) => {
    expect(matchConditions(when({ [name]: { include: [pattern] } }), push)).toBe(true);
    expect(matchConditions(when({ [name]: { exclude: [pattern] } }), push)).toBe(false);
  });

  it.each([
    ['target', { target: 'production' }],
    ['cron', { cron: 'nightly' }],
    ['action', { action: 'opened' }],
  ] as const)('evaluates %s against its own fact', (name, facts) => {
    const condition = when({ [name]: { include: [Object.values(facts)[0] ?? ''] } });
    expect(matchConditions(condition, push)).toBe(false);
    expect(matchConditions(condition, { ...push, ...facts })).toBe(true);
  });

  it('leaves status and paths to others', () => {
    const conditions = when({ status: { include: ['failure'] }, paths: { include: ['docs/**'] } });
    expect(matchConditions(conditions, push)).toBe(true);
  });
});

describe('statusRunPolicy', () => {
  it.each([
    [{}, 'on-success'],
    [{ include: ['success'] }, 'on-success'],
    [{ include: ['failure'] }, 'on-failure'],
    [{ include: ['success', 'failure'] }, 'always'],
    [{ exclude: ['success'] }, 'on-failure'],
    [{ exclude: ['failure'] }, 'on-success'],
    [{ include: ['*'] }, 'always'],
    [{ exclude: ['success', 'failure'] }, 'never'],
  ] as const)('%j runs %s', (status, policy) => {
    expect(statusRunPolicy({ include: [], exclude: [], ...status })).toBe(policy);
  });
});

describe('matchFacts', () => {
  it('takes the target branch, the deployment target and the server host, as Drone does', () => {
    const facts = matchFacts(
      { slug: 'octocat/hello' },
      {
        target: 'main',
        event: 'promote',
        ref: 'refs/heads/main',
        deployTo: 'production',
        cron: '',
        action: '',
      },
      'ci.example.com',
    );
    expect(facts).toEqual({
      branch: 'main',
      event: 'promote',
      ref: 'refs/heads/main',
      repo: 'octocat/hello',
      instance: 'ci.example.com',
      target: 'production',
      cron: '',
      action: '',
    });
  });
});
