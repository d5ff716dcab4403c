import { isHttpUrl } from './network.js';
import type { EntryRule } from './collections.js';

/** The webhook event kinds and their actions (the spec's Events table). */
export const WEBHOOK_EVENTS = {
  user: ['created', 'updated', 'deleted'],
  repo: ['enabled', 'disabled', 'updated'],
  build: ['created', 'updated'],
} as const;

/** The build events a runner may be limited to (SVC_LIMIT_EVENTS). */
export const BUILD_EVENTS = ['push', 'pull_request', 'tag', 'promote', 'rollback', 'cron', 'custom'] as const;

const ALL_WEBHOOK_EVENTS = Object.entries(WEBHOOK_EVENTS).flatMap(([kind, actions]) =>
  actions.map((action) => `${kind}:${action}`),
);

/** SVC_WEBHOOK_EVENTS entries: a kind or one of the Events table. */
export const webhookEvent: EntryRule = {
  one: 'a webhook event',
  many: 'webhook events',
  expected: `an event kind (user, repo, build) or one of ${ALL_WEBHOOK_EVENTS.join(', ')}`,
  test: (entry) => Object.hasOwn(WEBHOOK_EVENTS, entry) || ALL_WEBHOOK_EVENTS.includes(entry),
};

/** SVC_LIMIT_EVENTS entries. */
export const buildEvent: EntryRule = {
  one: 'a build event',
  many: 'build events',
  expected: BUILD_EVENTS.join(', '),
  test: (entry) => (BUILD_EVENTS as readonly string[]).includes(entry),
};

/** SVC_LIMIT_REPOS entries. */
export const repoPattern: EntryRule = {
  one: 'a repository pattern',
  many: 'repository patterns',
  expected: '<owner>/<name> or <owner>/*, such as octocat/hello-world or octocat/*',
  test: (entry) => /^[^/*\s]+\/(?:\*|[^/*\s]+)$/.test(entry),
};

/** SVC_RUNNER_VOLUMES entries; the optional :ro/:rw mode is what Docker bind mounts accept. */
export const volumeMount: EntryRule = {
  one: 'a volume',
  many: 'volumes',
  expected: '<host_path>:<container_path> with absolute paths, optionally followed by :ro or :rw',
  test: (entry) => /^\/[^:]*:\/[^:]*(?::(?:ro|rw))?$/.test(entry),
};

/** SVC_RUNNER_DEVICES entries, as Docker's --device takes them. */
export const devicePath: EntryRule = {
  one: 'a device',
  many: 'devices',
  expected: 'an absolute device path such as /dev/fuse, optionally <host_device>:<container_device>',
  test: (entry) => /^\/[^:]+(?::\/[^:]+)?$/.test(entry),
};

/** SVC_CPU_SET entries, as Docker's cpuset takes them. */
export const cpuSet: EntryRule = {
  one: 'a CPU number or range',
  many: 'CPU numbers or ranges',
  expected: 'CPU numbers or ranges such as 0,1 or 0-3',
  test: (entry) => /^\d+(?:-\d+)?$/.test(entry),
};

/** SVC_WEBHOOK_ENDPOINT entries. */
export const httpUrlEntry: EntryRule = {
  one: 'an http(s) URL',
  many: 'http(s) URLs',
  expected: 'http:// or https:// URLs such as https://hooks.example.com/svc',
  test: isHttpUrl,
};
