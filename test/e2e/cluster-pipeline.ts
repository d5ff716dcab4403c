/*
 * The pipeline the cluster runners' end-to-end tests build (`svc runner nomad`, `svc runner
 * kubernetes`): two stages; the first has a service reached by name, a secret, a step that fails with
 * `failure: ignore`, and a plugin step; the second depends on the first.
 */
import { expect } from 'vitest';
import { PLUGIN_IMAGE } from '../support/images.js';
import type { HostBuild, HostE2E } from './host-e2e.js';

export const SECRET_VALUE = 'tok-5b2d90c1-cluster-secret';

export function clusterPipeline(type: 'docker' | 'kubernetes', extra = ''): string {
  return `kind: pipeline
type: ${type}
name: build
${extra}services:
- name: cache
  image: local/busybox
  pull: if-not-exists
  commands: [ "mkdir -p /www && echo pong > /www/ping && httpd -f -p 8080 -h /www" ]
steps:
- name: test
  image: local/busybox
  pull: if-not-exists
  environment:
    TOKEN: { from_secret: token }
  commands:
  - cat README.md
  - echo "the token is $TOKEN"
  - for i in $(seq 1 100); do wget -q -O - http://cache:8080/ping && exit 0; sleep 0.1; done; exit 1
- name: lint
  image: local/busybox
  pull: if-not-exists
  failure: ignore
  commands: [ "echo lint fails", "exit 3" ]
- name: notify
  image: ${PLUGIN_IMAGE}
  pull: if-not-exists
  settings:
    message: the build of \${DRONE_COMMIT_SHA}
---
kind: pipeline
type: ${type}
name: deploy
${extra}depends_on: [build]
steps:
- name: ship
  image: local/busybox
  pull: if-not-exists
  commands: [ "echo shipping $DRONE_COMMIT_SHA" ]
`;
}

/** Checks a finished build of clusterPipeline: green, each step as expected, secret masked. */
export async function expectClusterBuild(e2e: HostE2E, build: HostBuild, sha: string): Promise<void> {
  const stages = Object.fromEntries((build.stages ?? []).map((stage) => [stage.number, stage]));
  const steps = (stage: number) =>
    Object.fromEntries((stages[stage]?.steps ?? []).map((step) => [step.name, step.status]));
  const test = await e2e.log(build, 'test');
  expect(build.status, `${JSON.stringify(build.stages)}\n${test.join('\n')}`).toBe('success');
  expect(steps(1)).toEqual({
    clone: 'success',
    cache: 'success',
    test: 'success',
    lint: 'failure',
    notify: 'success',
  });
  expect(steps(2)).toEqual({ clone: 'success', ship: 'success' });
  expect(test).toEqual(expect.arrayContaining(['hello from the cluster', 'the token is ********', 'pong']));
  expect(test.join('\n')).not.toContain(SECRET_VALUE);
  expect(await e2e.log(build, 'lint')).toContain('lint fails');
  const notify = await e2e.log(build, 'notify');
  expect(notify, notify.join('\n')).toContain(`plugin says: the build of ${sha}`);
  expect(await e2e.log(build, 'ship', 2)).toContain(`shipping ${sha}`);
  await e2e.succeeded(sha);
}
