/*
 * Moving from Drone, end to end: a Drone database (SQLite, Drone 2.25's schema) with a user, an
 * active repository and an encrypted secret → `svc migrate drone` → `svc server` on the result and
 * `svc runner docker`: the provider's push webhook, signed with the secret Drone registered, makes
 * build 42 (Drone had handed out 41), whose step gets the migrated secret; Drone's API token works.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countMatching, dockerForTests } from '../../src/engines/docker/testing.case.js';
import { call } from '../api/client.js';
import { startGitHubDouble, type GitHubDouble } from '../doubles/github/index.js';
import { droneProducts, droneSeal, type DroneTestDatabase } from '../support/drone-database.js';
import { runSvc } from '../support/svc-process.js';
import { freePort, serverEnv, startRunner, startServer, waitFor, type SvcProcess } from './system.js';

const docker = await dockerForTests(['local/busybox']);
const REPO = 'octocat/app';
const RUNNER = `e2e-drone-runner-${process.pid}`;
const DRONE_KEY = 'c0ffeec0ffeec0ffeec0ffeec0ffee00';
const DRONE_TOKEN = 'drone-api-token-of-octocat-00001';
const HOOK_SECRET = 'hook-secret-drone-registered-01';
const GREETING = 'hello from drone, decrypted';
const PIPELINE = `kind: pipeline
type: docker
name: default
clone:
  disable: true
steps:
- name: greet
  image: local/busybox
  pull: if-not-exists
  environment:
    GREETING:
      from_secret: greeting
  commands:
  - test "$GREETING" = "${GREETING}" && echo the migrated secret arrived
`;

/** Drone's rows for octocat, their repository (41 builds so far) and its secret, as Drone wrote them. */
async function seed(drone: DroneTestDatabase, githubToken: string, repoId: number): Promise<void> {
  const t = 1_700_000_000;
  await drone.insert('users', {
    user_id: 1,
    user_login: 'octocat',
    user_email: 'octocat@example.com',
    user_admin: true,
    user_machine: false,
    user_active: true,
    user_avatar: '',
    user_syncing: false,
    user_synced: t,
    user_created: t,
    user_updated: t,
    user_last_login: t,
    user_oauth_token: Buffer.from(githubToken),
    user_oauth_refresh: Buffer.alloc(0),
    user_oauth_expiry: 0,
    user_hash: DRONE_TOKEN,
  });
  await drone.insert('repos', {
    repo_id: 1,
    repo_uid: String(repoId),
    repo_user_id: 1,
    repo_namespace: 'octocat',
    repo_name: 'app',
    repo_slug: REPO,
    repo_scm: '',
    repo_clone_url: 'https://github.example.com/octocat/app.git',
    repo_ssh_url: '',
    repo_html_url: 'https://github.example.com/octocat/app',
    repo_active: true,
    repo_private: false,
    repo_visibility: 'public',
    repo_branch: 'main',
    repo_counter: 41,
    repo_config: '.drone.yml',
    repo_timeout: 60,
    repo_trusted: false,
    repo_protected: false,
    repo_synced: t,
    repo_created: t,
    repo_updated: t,
    repo_version: 1,
    repo_signer: HOOK_SECRET,
    repo_secret: 'repository-key-0123456789abcdef0',
  });
  await drone.insert('perms', {
    perm_user_id: 1,
    perm_repo_uid: String(repoId),
    perm_read: true,
    perm_write: true,
    perm_admin: true,
    perm_synced: t,
    perm_created: t,
    perm_updated: t,
  });
  await drone.insert('secrets', {
    secret_id: 1,
    secret_repo_id: 1,
    secret_name: 'greeting',
    secret_data: droneSeal(DRONE_KEY, GREETING),
    secret_pull_request: false,
    secret_pull_request_push: false,
  });
}

describe.skipIf(docker.skip)('moving from Drone: svc migrate drone → svc server → svc runner docker', () => {
  let github: GitHubDouble;
  let drone: DroneTestDatabase;
  let server: SvcProcess | undefined;
  let runner: SvcProcess | undefined;
  let port = 0;
  let env: Record<string, string> = {};
  const folders: string[] = [];
  const folder = (prefix: string) => {
    folders.push(mkdtempSync(join(tmpdir(), prefix)));
    return folders.at(-1)!;
  };
  const url = () => `http://127.0.0.1:${port}`;

  beforeAll(async () => {
    github = await startGitHubDouble({ enterprise: true });
    const { token } = github.addUser({ login: 'octocat', email: 'octocat@example.com' });
    const { id } = github.addRepo({ owner: 'octocat', name: 'app', admins: ['octocat'] });
    github.commit(REPO, 'main', { '.drone.yml': PIPELINE }, 'the pipeline, as it was on Drone');
    drone = await droneProducts()[0]!.create();
    await seed(drone, token, id);
    port = await freePort();
    env = {
      ...serverEnv(port, folder('svc-e2e-drone-'), github),
      SVC_DATABASE_SECRET: 'svc-database-key-0123456789abcde',
    };
  });

  afterAll(async () => {
    await runner?.stop();
    await server?.stop();
    await github?.close();
    await drone?.drop();
    for (const path of folders) rmSync(path, { recursive: true, force: true });
    if (docker.docker) {
      expect((await countMatching(docker.docker, { label: [`io.svc.owner=${RUNNER}`] })).containers).toBe(0);
    }
  });

  it('migrates, and the migrated svc builds a push with the migrated secret', async () => {
    const before = await drone.fingerprint();
    const cwd = folder('svc-e2e-migrate-');
    const migrated = await runSvc(['migrate', 'drone', '--from', drone.from], {
      cwd,
      env: { ...env, DRONE_DATABASE_SECRET: DRONE_KEY },
    });
    expect(migrated.code, migrated.stderr).toBe(0);
    expect(migrated.stdout).toMatch(/secrets\s+1\s+0\s+0/);
    expect(migrated.stdout + migrated.stderr).not.toContain(GREETING);
    expect(await drone.fingerprint()).toBe(before);

    server = await startServer(env);
    runner = startRunner(port, RUNNER, []);
    // The provider still has the hook Drone registered, signed with Drone's secret for it.
    expect(await github.push(REPO, 'main', `${url()}/hook`, { secret: HOOK_SECRET })).toBe(200);
    const done = await waitFor('build 42 to end', async () => {
      const answer = await call({ url: url() }, `/api/repos/${REPO}/builds/42`, { token: DRONE_TOKEN });
      const build = answer.json as { status?: string };
      return answer.status === 200 && ['success', 'failure', 'error', 'killed'].includes(build.status ?? '')
        ? build
        : undefined;
    });
    expect(done.status, JSON.stringify(done)).toBe('success');
    const log = await call({ url: url() }, `/api/repos/${REPO}/builds/42/logs/1/1`, { token: DRONE_TOKEN });
    expect(log.text).toContain('the migrated secret arrived');
    expect(log.text).not.toContain(GREETING);
  });
});
