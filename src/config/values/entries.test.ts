import { describe, expect, it } from 'vitest';
import {
  buildEvent,
  cpuSet,
  devicePath,
  httpUrlEntry,
  repoPattern,
  volumeMount,
  webhookEvent,
} from './entries.js';

describe('list entry rules', () => {
  it.each([
    [
      'webhook events',
      webhookEvent,
      ['user', 'repo', 'build', 'user:created', 'repo:disabled', 'build:updated'],
      ['users', 'build:deleted', 'repo:', ':created', 'push'],
    ],
    [
      'build events',
      buildEvent,
      ['push', 'pull_request', 'tag', 'promote', 'rollback', 'cron', 'custom'],
      ['merge', 'Push', 'deploy'],
    ],
    [
      'repository patterns',
      repoPattern,
      ['octocat/hello-world', 'octocat/*', 'my.org/repo_1'],
      ['octocat', '*/repo', 'a/b/c', 'octocat/he*', '/repo'],
    ],
    [
      'volumes',
      volumeMount,
      ['/var/run/docker.sock:/var/run/docker.sock', '/cache:/cache:ro', '/a:/b:rw'],
      ['/data', 'data:/data', '/a:b', '/a:/b:rx'],
    ],
    ['devices', devicePath, ['/dev/fuse', '/dev/sda:/dev/xvdc'], ['fuse', '/dev/sda:xvdc']],
    ['cpu sets', cpuSet, ['0', '0-3', '12'], ['first', '0-', '-1', '1,2']],
    [
      'URLs',
      httpUrlEntry,
      ['https://hooks.example.com/svc', 'http://10.0.0.1:9000'],
      ['not a url', 'ftp://x.example.com'],
    ],
  ] as const)('%s', (_name, rule, good, bad) => {
    for (const entry of good) expect({ entry, ok: rule.test(entry) }).toEqual({ entry, ok: true });
    for (const entry of bad) expect({ entry, ok: rule.test(entry) }).toEqual({ entry, ok: false });
  });
});
