import { describe, expect, it } from 'vitest';
import type { Build } from '../../core/build.js';
import type { Repo } from '../../core/repo.js';
import type { User } from '../../core/user.js';
import { storedStage } from '../../store/cases/fixtures.case.js';
import { WebhookEvents } from './webhook-events.js';

const user = { id: 7, login: 'octocat', email: 'o@example.com', admin: false } as User;
const repo = { id: 3, userId: 7, slug: 'octocat/hello', namespace: 'octocat', name: 'hello' } as Repo;
const build = { id: 11, repoId: 3, number: 5, status: 'pending', event: 'push' } as Build;

function events(selected: string[]) {
  const sent: { kind: string; payload: Record<string, unknown> }[] = [];
  const webhooks = new WebhookEvents({
    sink: { send: (kind, payload) => sent.push({ kind, payload: payload as Record<string, unknown> }) },
    selected,
    system: { proto: 'https', host: 'ci.example.com', version: '1.2.3' },
    users: { find: (id) => Promise.resolve(id === 7 ? user : undefined) },
  });
  return { webhooks, sent };
}

describe('WebhookEvents', () => {
  it('sends Drone-shaped payloads with the system they come from', async () => {
    const { webhooks, sent } = events(['user', 'repo', 'build']);
    webhooks.emit({ kind: 'user', action: 'created', user });
    webhooks.emit({ kind: 'repo', action: 'enabled', repo });
    await webhooks.buildUpdated({ repo, build, stages: [storedStage(1)], created: true });
    await webhooks.buildUpdated({ repo, build: { ...build, status: 'running' }, stages: [] });
    expect(sent.map((s) => [s.kind, s.payload.event, s.payload.action])).toEqual([
      ['user', 'user', 'created'],
      ['repo', 'repo', 'enabled'],
      ['build', 'build', 'created'],
      ['build', 'build', 'updated'],
    ]);
    expect(sent[0]?.payload).toMatchObject({ user: { id: 7, login: 'octocat' } });
    expect(sent[0]?.payload.repo).toBeUndefined();
    expect(sent[1]?.payload).toMatchObject({ repo: { id: 3, slug: 'octocat/hello' } });
    // A build names its repository's owner as the user, as Drone does, and carries its stages.
    expect(sent[2]?.payload).toMatchObject({
      user: { login: 'octocat' },
      repo: { slug: 'octocat/hello' },
      build: { number: 5, status: 'pending', stages: [{ id: 1 }] },
      system: { proto: 'https', host: 'ci.example.com', link: 'https://ci.example.com', version: '1.2.3' },
    });
    expect(sent[3]?.payload).toMatchObject({ build: { status: 'running' } });
  });

  it('sends only the kinds and kind:action pairs SVC_WEBHOOK_EVENTS selects', async () => {
    const { webhooks, sent } = events(['build:created', 'user']);
    webhooks.emit({ kind: 'user', action: 'deleted', user });
    webhooks.emit({ kind: 'repo', action: 'enabled', repo });
    await webhooks.buildUpdated({ repo, build, stages: [], created: true });
    await webhooks.buildUpdated({ repo, build, stages: [] });
    expect(sent.map((s) => `${s.kind}:${s.payload.action as string}`)).toEqual([
      'user:deleted',
      'build:created',
    ]);
  });
});
