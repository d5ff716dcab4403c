import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientCommand } from '../../../src/cli/client.js';
import { enable, loginAs, tokenOf } from '../../api/client.js';
import { startHarness, type Harness } from '../../api/harness.js';
import { clientFor, jsonOf, type Svc } from './run.js';

const FILE = `kind: pipeline
type: docker
name: nightly
trigger:
  event: [cron]
steps:
- name: test
  image: alpine
  commands: [true]
`;

describe('svc secret, cron, repo, user, queue, runner, encrypt and sign against a real server', () => {
  let h: Harness;
  let svc: Svc;
  let cwd: string;

  beforeAll(async () => {
    h = await startHarness();
    h.github.addUser({ login: 'octocat', orgAdmin: ['acme'] });
    h.github.addRepo({ owner: 'octocat', name: 'app', admins: ['octocat'] });
    h.github.commit('octocat/app', 'main', { '.drone.yml': FILE }, 'first');
    const session = await loginAs(h, 'octocat');
    await enable(h, session, 'octocat/app');
    const octocat = await h.store.users.findLogin('octocat');
    await h.store.users.update({ ...octocat!, admin: true });
    cwd = mkdtempSync(join(tmpdir(), 'svc-client-admin-'));
    svc = clientFor(h, await tokenOf(h, session), cwd);
  });
  afterAll(() => h.close());

  it('adds, lists, shows, changes and deletes repository and organization secrets, never their values', async () => {
    writeFileSync(join(cwd, 'key.pem'), 'a value from a file');
    expect(
      (await svc('secret', 'add', 'octocat/app', '--name', 'deploy_key', '--data', '@key.pem')).code,
    ).toBe(0);
    expect(
      (
        await svc(
          'secret',
          'add',
          'octocat/app',
          '--name',
          'token',
          '--data',
          's3cr3t',
          '--allow-pull-request',
        )
      ).code,
    ).toBe(0);
    const listed = await svc('secret', 'ls', 'octocat/app');
    expect(listed.stdout).toMatch(/^NAME\s+PULL REQUESTS\s+PULL REQUEST PUSHES$/m);
    expect(listed.stdout).toMatch(/^token\s+true\s+false$/m);
    expect(listed.stdout).not.toContain('s3cr3t');
    expect(listed.stdout).not.toContain('from a file');
    const updated = await svc(
      'secret',
      'update',
      'octocat/app',
      'token',
      '--allow-push-on-pull-request',
      '--format',
      'json',
    );
    expect(jsonOf(updated)).toMatchObject({ name: 'token', pull_request_push: true });
    expect((await svc('secret', 'info', 'octocat/app', 'deploy_key')).stdout).toMatch(/Name:\s+deploy_key/);
    expect((await svc('secret', 'rm', 'octocat/app', 'token')).stdout).toBe('secret token deleted\n');
    expect((await svc('secret', 'info', 'octocat/app', 'token')).code).toBe(1);
    expect((await svc('secret', 'add', 'octocat/app', '--name', 'bad name!', '--data', 'x')).stderr).toMatch(
      /^svc: name/,
    );
    expect((await svc('secret', 'add', 'octocat/app', '--name', 'x')).stderr).toContain(
      'missing the value (--data)',
    );
    expect((await svc('secret', 'add', '--org', 'acme', '--name', 'shared', '--data', 'v')).code).toBe(0);
    expect((await svc('secret', 'ls', '--org', 'acme')).stdout).toMatch(/^shared\s+false\s+false$/m);
  });

  it('adds, shows, changes, runs and deletes cron jobs; a bad expression is the server’s message', async () => {
    const added = await svc('cron', 'add', 'octocat/app', 'nightly', '@daily', '--branch', 'main');
    expect(added.stdout).toMatch(/Expr:\s+@daily/);
    expect((await svc('cron', 'ls', 'octocat/app')).stdout).toMatch(/^nightly\s+@daily\s+main\s+\d{4}-/m);
    const bad = await svc('cron', 'add', 'octocat/app', 'broken', '61 * * * *');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^svc: expr: invalid cron expression/);
    const changed = jsonOf<{ disabled: boolean; expr: string }>(
      await svc('cron', 'update', 'octocat/app', 'nightly', '--expr', '@hourly', '--format', 'json'),
    );
    expect(changed).toMatchObject({ expr: '@hourly', disabled: false });
    const ran = await svc('cron', 'exec', 'octocat/app', 'nightly');
    expect(ran.stdout).toMatch(/Event:\s+cron/);
    expect((await svc('cron', 'info', 'octocat/app', 'nightly')).stdout).toMatch(/Name:\s+nightly/);
    expect((await svc('cron', 'update', 'octocat/app', 'nightly', '--disabled', 'maybe')).code).toBe(2);
    expect((await svc('cron', 'rm', 'octocat/app', 'nightly')).code).toBe(0);
    expect((await svc('cron', 'ls', 'octocat/app')).stdout).toBe('no cron jobs\n');
  });

  it('lists and shows repositories, changes their settings, repairs, syncs, chowns, disables and enables', async () => {
    expect((await svc('repo', 'ls')).stdout).toMatch(/^octocat\/app\s+true\s+/m);
    expect((await svc('repo', 'ls', '--all', '--format', 'json')).code).toBe(0);
    const updated = await svc(
      'repo',
      'update',
      'octocat/app',
      '--trusted',
      'true',
      '--timeout',
      '90',
      '--approval',
      'all',
      '--auto-cancel-pushes',
      'true',
    );
    expect(updated.code, updated.stderr).toBe(0);
    expect(updated.stdout).toMatch(/Trusted:\s+true/);
    expect(updated.stdout).toMatch(/Approval:\s+all/);
    expect(updated.stdout).toMatch(/Timeout:\s+90 minutes/);
    expect(updated.stdout).toMatch(/Auto-cancel pushes:\s+true/);
    expect((await svc('repo', 'update', 'octocat/app', '--approval', 'sometimes')).stderr).toMatch(
      /^svc: approval/,
    );
    expect((await svc('repo', 'update', 'octocat/app')).stderr).toContain('nothing to change');
    expect((await svc('repo', 'info', 'octocat/app')).stdout).toMatch(/Repository:\s+octocat\/app/);
    expect((await svc('repo', 'repair', 'octocat/app')).code).toBe(0);
    expect((await svc('repo', 'chown', 'octocat/app')).code).toBe(0);
    expect((await svc('repo', 'sync')).stdout).toContain('octocat/app');
    expect((await svc('repo', 'disable', 'octocat/app')).stdout).toMatch(/Active:\s+false/);
    expect((await svc('repo', 'enable', 'octocat/app')).stdout).toMatch(/Active:\s+true/);
  });

  it('administers accounts, the queue and runners', async () => {
    const robot = await svc('user', 'add', 'robot', '--machine', 'true');
    expect(robot.stdout).toMatch(/Token:\s+\S{32}/);
    expect((await svc('user', 'ls')).stdout).toMatch(/^robot\s+false\s+true\s+true\s+-$/m);
    expect((await svc('user', 'update', 'robot', '--active', 'false')).stdout).toMatch(/Active:\s+false/);
    expect((await svc('user', 'info', 'robot')).stdout).toMatch(/Login:\s+robot/);
    expect((await svc('user', 'rm', 'robot')).stdout).toBe('user robot deleted\n');
    expect((await svc('user', 'info', 'robot')).code).toBe(1);
    expect((await svc('queue', 'pause')).stdout).toBe('queue paused\n');
    const queue = await svc('queue', 'ls');
    expect(queue.code).toBe(0);
    expect(queue.stdout).toMatch(/the queue is empty|paused/);
    expect((await svc('queue', 'resume')).stdout).toBe('queue resumed\n');
    expect((await svc('runner', 'ls')).stdout).toBe('no runner has polled\n');
  });

  it('encrypts a value and signs a pipeline file (--save writes it back)', async () => {
    const encrypted = await svc('encrypt', 'octocat/app', 'hunter2');
    expect(encrypted.stdout).toMatch(/^[A-Za-z0-9+/]+=*\n$/);
    expect(encrypted.stdout).not.toContain('hunter2');
    writeFileSync(join(cwd, '.drone.yml'), FILE);
    const signature = await svc('sign', 'octocat/app');
    expect(signature.stdout).toMatch(/^[0-9a-f]{64}\n$/);
    expect((await svc('sign', 'octocat/app', '--save')).stdout).toContain('signed ');
    expect(readFileSync(join(cwd, '.drone.yml'), 'utf8')).toContain(`hmac: ${signature.stdout.trim()}`);
    expect((await svc('sign', 'octocat/app', 'missing.yml')).stderr).toContain('cannot read');
  });

  it('refuses to run without SVC_SERVER and SVC_TOKEN, and names a server it cannot reach', async () => {
    let stderr = '';
    const io = { stdout: () => undefined, stderr: (t: string) => (stderr += t), cwd };
    expect(await clientCommand('build', ['ls', 'octocat/app'], {}, io)).toBe(2);
    expect(stderr).toContain('set SVC_SERVER');
    expect(stderr).toContain('SVC_TOKEN');
    stderr = '';
    const unreachable = { SVC_SERVER: 'http://127.0.0.1:1', SVC_TOKEN: 'x' };
    expect(await clientCommand('repo', ['ls'], unreachable, io)).toBe(1);
    expect(stderr).toMatch(/^svc: cannot reach the server at http:\/\/127\.0\.0\.1:1 \(SVC_SERVER\)/);
    stderr = '';
    expect(await clientCommand('repo', ['ls'], { SVC_SERVER: 'ftp://x', SVC_TOKEN: 'x' }, io)).toBe(2);
    expect(stderr).toContain('expected an http or https URL');
  });
});
