import type { ForeignKeyConstraintBuilder, Kysely } from 'kysely';
import type { DialectAdapter } from '../dialects/adapter.js';
import { createTable, type ColumnKind, type Migration } from './migration.js';

/** Deleting the referenced row deletes this one. */
const cascade = (fk: ForeignKeyConstraintBuilder) => fk.onDelete('cascade');

async function up(db: Kysely<unknown>, adapter: DialectAdapter): Promise<void> {
  const table = (name: string, columns: Record<string, ColumnKind>, withId = true) =>
    createTable(db, adapter, name, columns, { withId });

  await table('meta', { name: 'key', value: 'text' }, false)
    .addPrimaryKeyConstraint('meta_pk', ['name'])
    .execute();

  await table('users', {
    login: 'key',
    email: 'text',
    avatar: 'text',
    machine: 'flag',
    admin: 'flag',
    active: 'flag',
    token: 'key',
    scm_token: 'text',
    scm_refresh: 'text',
    scm_expiry: 'bigint',
    last_login: 'bigint',
    created: 'bigint',
    updated: 'bigint',
  })
    .addUniqueConstraint('users_login_uq', ['login'])
    .addUniqueConstraint('users_token_uq', ['token'])
    .execute();

  await table('repos', {
    uid: 'key',
    user_id: 'ref',
    namespace: 'key',
    name: 'key',
    slug: 'key',
    scm: 'key',
    clone_url: 'text',
    clone_url_ssh: 'text',
    link: 'text',
    default_branch: 'text',
    private: 'flag',
    visibility: 'key',
    active: 'flag',
    config_path: 'text',
    trusted: 'flag',
    protected: 'flag',
    ignore_forks: 'flag',
    ignore_pull_requests: 'flag',
    cancel_pulls: 'flag',
    cancel_push: 'flag',
    timeout: 'int',
    counter: 'int',
    hook_secret: 'text',
    synced: 'bigint',
    created: 'bigint',
    updated: 'bigint',
    version: 'int',
  })
    .addUniqueConstraint('repos_uid_uq', ['uid'])
    .addUniqueConstraint('repos_slug_uq', ['slug'])
    .execute();

  await table(
    'perms',
    {
      user_id: 'ref',
      repo_id: 'ref',
      read: 'flag',
      write: 'flag',
      admin: 'flag',
      synced: 'bigint',
      created: 'bigint',
      updated: 'bigint',
    },
    false,
  )
    .addPrimaryKeyConstraint('perms_pk', ['user_id', 'repo_id'])
    .addForeignKeyConstraint('perms_user_fk', ['user_id'], 'users', ['id'], cascade)
    .addForeignKeyConstraint('perms_repo_fk', ['repo_id'], 'repos', ['id'], cascade)
    .execute();
  await db.schema.createIndex('perms_repo_ix').on('perms').column('repo_id').execute();

  await table('builds', {
    repo_id: 'ref',
    number: 'int',
    parent: 'int',
    status: 'key',
    error: 'text',
    event: 'key',
    action: 'text',
    trigger: 'text',
    link: 'text',
    title: 'text',
    message: 'text',
    before: 'text',
    after: 'text',
    ref: 'text',
    source_repo: 'text',
    source: 'text',
    target: 'text',
    author_login: 'text',
    author_name: 'text',
    author_email: 'text',
    author_avatar: 'text',
    sender: 'text',
    params: 'text',
    cron: 'text',
    deploy_to: 'text',
    deploy_id: 'bigint',
    debug: 'flag',
    started: 'bigint',
    finished: 'bigint',
    created: 'bigint',
    updated: 'bigint',
    version: 'int',
  })
    // Also the index of "a repository's builds, newest first".
    .addUniqueConstraint('builds_repo_number_uq', ['repo_id', 'number'])
    .addForeignKeyConstraint('builds_repo_fk', ['repo_id'], 'repos', ['id'], cascade)
    .execute();
  await db.schema.createIndex('builds_status_ix').on('builds').column('status').execute();

  await table('stages', {
    repo_id: 'ref',
    build_id: 'ref',
    number: 'int',
    name: 'text',
    kind: 'key',
    type: 'key',
    status: 'key',
    error: 'text',
    err_ignore: 'flag',
    exit_code: 'int',
    machine: 'text',
    os: 'key',
    arch: 'key',
    variant: 'key',
    kernel: 'key',
    limit: 'int',
    started: 'bigint',
    stopped: 'bigint',
    heartbeat: 'bigint',
    created: 'bigint',
    updated: 'bigint',
    version: 'int',
    on_success: 'flag',
    on_failure: 'flag',
    depends_on: 'text',
    labels: 'text',
  })
    .addUniqueConstraint('stages_build_number_uq', ['build_id', 'number'])
    .addForeignKeyConstraint('stages_build_fk', ['build_id'], 'builds', ['id'], cascade)
    .execute();
  await db.schema.createIndex('stages_status_ix').on('stages').columns(['status', 'id']).execute();

  await table('steps', {
    stage_id: 'ref',
    number: 'int',
    name: 'text',
    status: 'key',
    error: 'text',
    err_ignore: 'flag',
    exit_code: 'int',
    image: 'text',
    detached: 'flag',
    depends_on: 'text',
    started: 'bigint',
    stopped: 'bigint',
    version: 'int',
  })
    .addUniqueConstraint('steps_stage_number_uq', ['stage_id', 'number'])
    .addForeignKeyConstraint('steps_stage_fk', ['stage_id'], 'stages', ['id'], cascade)
    .execute();

  await table('logs', { step_id: 'ref', part: 'int', data: 'blob' }, false)
    .addPrimaryKeyConstraint('logs_pk', ['step_id', 'part'])
    .addForeignKeyConstraint('logs_step_fk', ['step_id'], 'steps', ['id'], cascade)
    .execute();

  await table('secrets', {
    scope: 'key',
    scope_key: 'key',
    repo_id: 'nullable ref',
    name: 'key',
    data: 'text',
    pull_request: 'flag',
    pull_request_push: 'flag',
    created: 'bigint',
    updated: 'bigint',
  })
    .addUniqueConstraint('secrets_scope_name_uq', ['scope', 'scope_key', 'name'])
    .addForeignKeyConstraint('secrets_repo_fk', ['repo_id'], 'repos', ['id'], cascade)
    .execute();
  await db.schema.createIndex('secrets_repo_ix').on('secrets').column('repo_id').execute();

  await table('crons', {
    repo_id: 'ref',
    name: 'key',
    expr: 'text',
    next: 'bigint',
    prev: 'bigint',
    event: 'key',
    branch: 'text',
    target: 'text',
    disabled: 'flag',
    created: 'bigint',
    updated: 'bigint',
    version: 'int',
  })
    .addUniqueConstraint('crons_repo_name_uq', ['repo_id', 'name'])
    .addForeignKeyConstraint('crons_repo_fk', ['repo_id'], 'repos', ['id'], cascade)
    .execute();
  await db.schema.createIndex('crons_next_ix').on('crons').columns(['disabled', 'next']).execute();

  await table('runners', {
    name: 'key',
    kind: 'key',
    labels: 'text',
    capacity: 'int',
    max_procs: 'int',
    os: 'key',
    arch: 'key',
    version: 'text',
    last_seen: 'bigint',
    created: 'bigint',
    updated: 'bigint',
  })
    .addUniqueConstraint('runners_name_uq', ['name'])
    .execute();
}

/** Version 1: every table of the first release. */
export const initialSchema: Migration = { version: 1, name: 'initial schema', up };
