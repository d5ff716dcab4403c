/*
 * Test support: a Drone installation's data, written into a Drone test database as Drone 2.x
 * writes it (times in Unix seconds, secret values sealed with DRONE_DATABASE_SECRET, some rows in
 * plain text as Drone's mixed-content mode leaves them), with something for every kind
 * `svc migrate drone` brings across and for every reason it skips one.
 */
import { droneSeal, type DroneTestDatabase } from './drone-database.js';

/** DRONE_DATABASE_SECRET: 32 characters, the key as they are. */
export const DRONE_KEY = 'a2b8d1f0c3e94f6a8b7c6d5e4f3a2b1c';
/** Another key, for the secret sealed by mistake with it and for the wrong-key tests. */
export const OTHER_KEY = 'ffffffffffffffffffffffffffffffff';

/** The values the seed seals, which must come out of svc's store as they are. */
export const VALUES = {
  dockerPassword: 'correct horse battery staple',
  multiline: '-----BEGIN KEY-----\nline two\n-----END KEY-----\n',
  plainOld: 'written-before-the-key',
  npmToken: 'npm_0123456789',
  octocatToken: 'gho_octocat_token',
  hubotToken: 'gho_hubot_token',
  hubotRefresh: 'ghr_hubot_refresh',
} as const;

/** Drone's API tokens (user_hash): `drone` CLI users keep them. */
export const DRONE_TOKENS = {
  octocat: 'drone-api-token-octocat-00000001',
  hubot: 'drone-api-token-hubot-0000000002',
};

export const HELLO_UID = '1296269';
export const T0 = 1_700_000_000; // Unix seconds, as Drone stores times

/** A build's log as Drone stores it: the JSON array of lines its runners upload. */
function droneLog(lines: string[]): Buffer {
  return Buffer.from(JSON.stringify(lines.map((out, pos) => ({ pos, out: `${out}\n`, time: pos }))), 'utf8');
}

/** Writes the installation; `key` seals what Drone encrypted. */
export async function seedDrone(db: DroneTestDatabase, key = DRONE_KEY): Promise<void> {
  await seedUsers(db, key);
  await seedRepos(db);
  await seedSecrets(db, key);
  await seedCrons(db);
  await db.insert('templates', {
    template_id: 1,
    template_name: 'plugin.yaml',
    template_namespace: 'octocat',
    template_data: Buffer.from('kind: pipeline\nname: {{ .input.name }}\n'),
    template_created: T0,
    template_updated: T0,
  });
  await seedBuilds(db);
}

async function seedUsers(db: DroneTestDatabase, key: string): Promise<void> {
  const user = (id: number, login: string, extra: Record<string, string | number | boolean | Buffer>) =>
    db.insert('users', {
      user_id: id,
      user_login: login,
      user_email: `${login}@example.com`,
      user_admin: false,
      user_machine: false,
      user_active: true,
      user_avatar: `https://avatars.example.com/${login}`,
      user_syncing: false,
      user_synced: T0,
      user_created: T0,
      user_updated: T0,
      user_last_login: T0 + id,
      user_oauth_token: Buffer.alloc(0),
      user_oauth_refresh: Buffer.alloc(0),
      user_oauth_expiry: 0,
      user_hash: `machine-hash-${id}`,
      ...extra,
    });
  // Drone encrypts users' tokens only with DRONE_DATABASE_ENCRYPT_USER_TABLE: octocat's are from before.
  await user(1, 'octocat', {
    user_admin: true,
    user_oauth_token: Buffer.from(VALUES.octocatToken),
    user_hash: DRONE_TOKENS.octocat,
  });
  await user(2, 'hubot', {
    user_oauth_token: droneSeal(key, VALUES.hubotToken),
    user_oauth_refresh: droneSeal(key, VALUES.hubotRefresh),
    user_oauth_expiry: T0 + 3600,
    user_hash: DRONE_TOKENS.hubot,
  });
  await user(3, 'deploy-bot', { user_machine: true });
}

async function seedRepos(db: DroneTestDatabase): Promise<void> {
  const repo = (
    id: number,
    uid: string,
    name: string,
    extra: Record<string, string | number | boolean> = {},
  ) =>
    db.insert('repos', {
      repo_id: id,
      repo_uid: uid,
      repo_user_id: 1,
      repo_namespace: 'octocat',
      repo_name: name,
      repo_slug: `octocat/${name}`,
      repo_scm: '',
      repo_clone_url: `https://github.com/octocat/${name}.git`,
      repo_ssh_url: `git@github.com:octocat/${name}.git`,
      repo_html_url: `https://github.com/octocat/${name}`,
      repo_active: true,
      repo_private: false,
      repo_visibility: 'public',
      repo_branch: 'main',
      repo_counter: 0,
      repo_config: '.drone.yml',
      repo_timeout: 60,
      repo_trusted: false,
      repo_protected: false,
      repo_synced: T0,
      repo_created: T0,
      repo_updated: T0,
      repo_version: 1,
      repo_signer: `signer-${name}`,
      repo_secret: `secret-of-${name}-0123456789abcd`.slice(0, 32),
      ...extra,
    });
  await repo(1, HELLO_UID, 'hello', {
    repo_counter: 3,
    repo_trusted: true,
    repo_timeout: 90,
    repo_throttle: 2,
  });
  await repo(2, '', 'ancient');
  await db.insert('perms', perm(1, HELLO_UID, true));
  await db.insert('perms', perm(2, HELLO_UID, false));
  await db.insert('perms', perm(1, '999999', true)); // a repository Drone forgot
}

function perm(user: number, uid: string, admin: boolean) {
  return {
    perm_user_id: user,
    perm_repo_uid: uid,
    perm_read: true,
    perm_write: true,
    perm_admin: admin,
    perm_synced: T0,
    perm_created: T0,
    perm_updated: T0,
  };
}

async function seedSecrets(db: DroneTestDatabase, key: string): Promise<void> {
  const secret = (id: number, repo: number, name: string, data: Buffer, pullRequest = false) =>
    db.insert('secrets', {
      secret_id: id,
      secret_repo_id: repo,
      secret_name: name,
      secret_data: data,
      secret_pull_request: pullRequest,
      secret_pull_request_push: false,
    });
  await secret(1, 1, 'docker_password', droneSeal(key, VALUES.dockerPassword), true);
  await secret(2, 1, 'ssh_key', droneSeal(key, VALUES.multiline));
  await secret(3, 1, 'old_plain', Buffer.from(VALUES.plainOld));
  await secret(4, 1, 'other_key', droneSeal(OTHER_KEY, 'sealed with another key'));
  await secret(5, 2, 'orphan', droneSeal(key, 'of a repository not brought across'));
  await db.insert('orgsecrets', {
    secret_id: 1,
    secret_namespace: 'octocat',
    secret_name: 'npm_token',
    secret_type: '',
    secret_data: droneSeal(key, VALUES.npmToken),
    secret_pull_request: false,
    secret_pull_request_push: false,
  });
}

async function seedCrons(db: DroneTestDatabase): Promise<void> {
  const cron = (id: number, repo: number, name: string, expr: string) =>
    db.insert('cron', {
      cron_id: id,
      cron_repo_id: repo,
      cron_name: name,
      cron_expr: expr,
      cron_next: T0 + 86_400,
      cron_prev: T0,
      cron_event: 'push',
      cron_branch: 'main',
      cron_target: '',
      cron_disabled: false,
      cron_created: T0,
      cron_updated: T0,
      cron_version: 1,
    });
  await cron(1, 1, 'nightly', '0 0 * * *');
  await cron(2, 1, 'broken', 'every full moon');
  await cron(3, 2, 'ancient-nightly', '@daily');
}

async function seedBuilds(db: DroneTestDatabase): Promise<void> {
  const build = (id: number, number: number, status: string) =>
    db.insert('builds', {
      build_id: id,
      build_repo_id: 1,
      build_trigger: '@hook',
      build_number: number,
      build_parent: 0,
      build_status: status,
      build_error: '',
      build_event: 'push',
      build_action: '',
      build_link: `https://github.com/octocat/hello/commit/${number}`,
      build_timestamp: 0,
      build_title: '',
      build_message: `commit ${number} ✨`,
      build_before: '0000000',
      build_after: `sha-${number}`,
      build_ref: 'refs/heads/main',
      build_source_repo: '',
      build_source: 'main',
      build_target: 'main',
      build_author: 'octocat',
      build_author_name: 'The Octocat',
      build_author_email: 'octocat@example.com',
      build_author_avatar: '',
      build_sender: 'octocat',
      build_deploy: '',
      build_params: '{"FOO":"bar"}',
      build_started: T0 + number * 100,
      build_finished: status === 'running' ? 0 : T0 + number * 100 + 60,
      build_created: T0 + number * 100 - 1,
      build_updated: T0 + number * 100 + 60,
      build_version: 3,
      build_cron: '',
      build_deploy_id: 0,
      build_debug: false,
    });
  await build(1, 1, 'success');
  await build(2, 2, 'failure');
  await build(3, 3, 'running');
  await stage(db, { id: 1, build: 1, firstStep: 1 }, 'success', ['success', 'success']);
  await stage(db, { id: 2, build: 2, firstStep: 3 }, 'failure', ['success', 'failure', 'pending']);
  await db.insert('logs', { log_id: 1, log_data: droneLog(['+ git clone', 'cloned']) });
  await db.insert('logs', { log_id: 2, log_data: droneLog(['+ make test', 'ok']) });
  await db.insert('logs', { log_id: 3, log_data: droneLog(['+ git clone']) });
  await db.insert('logs', { log_id: 4, log_data: droneLog(['+ make test', 'FAIL']) });
  // Step 5 never ran: it has no log.
}

/** A build's one stage, `id`, with steps numbered from `firstStep` in Drone's step ids. */
async function stage(
  db: DroneTestDatabase,
  { id, build, firstStep }: { id: number; build: number; firstStep: number },
  status: string,
  steps: string[],
) {
  await db.insert('stages', {
    stage_id: id,
    stage_repo_id: 1,
    stage_build_id: build,
    stage_number: 1,
    stage_kind: 'pipeline',
    stage_type: 'docker',
    stage_name: 'default',
    stage_status: status,
    stage_error: '',
    stage_errignore: false,
    stage_exit_code: status === 'success' ? 0 : 1,
    stage_limit: 0,
    stage_os: 'linux',
    stage_arch: 'amd64',
    stage_variant: '',
    stage_kernel: '',
    stage_machine: 'drone-runner-1',
    stage_started: T0 + build * 100,
    stage_stopped: T0 + build * 100 + 50,
    stage_created: T0 + build * 100,
    stage_updated: T0 + build * 100 + 50,
    stage_version: 4,
    stage_on_success: true,
    stage_on_failure: false,
    stage_depends_on: '[]',
    stage_labels: '{"zone":"eu"}',
  });
  for (const [index, stepStatus] of steps.entries()) {
    await db.insert('steps', {
      step_id: firstStep + index,
      step_stage_id: id,
      step_number: index + 1,
      step_name: index === 0 ? 'clone' : `step-${index}`,
      step_status: stepStatus,
      step_error: '',
      step_errignore: false,
      step_exit_code: stepStatus === 'failure' ? 2 : 0,
      step_started: stepStatus === 'pending' ? 0 : T0 + build * 100 + index,
      step_stopped: stepStatus === 'pending' ? 0 : T0 + build * 100 + index + 1,
      step_version: 2,
      step_depends_on: index === 0 ? '[]' : '["clone"]',
      step_image: index === 0 ? 'drone/git' : 'golang:1.22',
      step_detached: false,
      step_schema: '',
    });
  }
}
