import type { LanguageFacts } from '../languages/types.js';
import { GoStruct, type GoValue, type StructField } from './gotemplate/index.js';

/** What a YAML template's `.build` and `.repo` hold beyond the facts Jsonnet and Starlark see. */
export interface TemplateExtras {
  readonly buildNumber?: number;
  readonly buildTrigger?: string;
  readonly buildParent?: number;
  /** Epoch milliseconds. */
  readonly buildCreated?: number;
  readonly repoId?: number;
  readonly repoUserId?: number;
  readonly repoScm?: string;
  /** Minutes. */
  readonly repoTimeout?: number;
  readonly repoCounter?: number;
}

type Row = [name: string, json: string, value: GoValue, omitEmpty?: true];

const struct = (type: string, rows: readonly Row[]) =>
  new GoStruct(
    type,
    rows.map(([name, json, value, omitEmpty]): StructField => ({ name, json, value, omitEmpty })),
  );

const text = (value: string | number | boolean | undefined): string =>
  value === undefined ? '' : String(value);
const flag = (value: string | number | boolean | undefined): boolean => value === true || value === 'true';

/**
 * drone-go's Build struct (the version Drone 2.x pins) with every field, in its order: what
 * `{{ .build.After }}` reads in a YAML template. Drone fills it from the build being created
 * (plugin/converter/remote.go toBuild); the status is `pending`, times are epoch seconds.
 */
export function goBuild(facts: LanguageFacts | undefined, extras: TemplateExtras): GoStruct {
  const b = facts?.build ?? {};
  const created = Math.floor((extras.buildCreated ?? 0) / 1000);
  return struct('drone.Build', [
    ['ID', 'id', 0],
    ['RepoID', 'repo_id', extras.repoId ?? 0],
    ['Trigger', 'trigger', extras.buildTrigger ?? ''],
    ['Number', 'number', extras.buildNumber ?? 0],
    ['Parent', 'parent', extras.buildParent ?? 0, true],
    ['Status', 'status', facts === undefined ? '' : 'pending'],
    ['Error', 'error', '', true],
    ['Event', 'event', text(b.event)],
    ['Action', 'action', text(b.action)],
    ['Link', 'link', text(b.link)],
    ['Timestamp', 'timestamp', 0],
    ['Title', 'title', text(b.title), true],
    ['Message', 'message', text(b.message)],
    ['Before', 'before', text(b.before)],
    ['After', 'after', text(b.after)],
    ['Ref', 'ref', text(b.ref)],
    ['Fork', 'source_repo', text(b.source_repo)],
    ['Source', 'source', text(b.source)],
    ['Target', 'target', text(b.target)],
    ['Author', 'author_login', text(b.author_login)],
    ['AuthorName', 'author_name', text(b.author_name)],
    ['AuthorEmail', 'author_email', text(b.author_email)],
    ['AuthorAvatar', 'author_avatar', text(b.author_avatar)],
    ['Sender', 'sender', text(b.sender)],
    ['Params', 'params', { ...facts?.params }, true],
    ['Cron', 'cron', text(b.cron), true],
    ['Deploy', 'deploy_to', text(b.environment), true],
    ['DeployID', 'deploy_id', 0, true],
    ['Debug', 'debug', flag(b.debug)],
    ['Started', 'started', 0],
    ['Finished', 'finished', 0],
    ['Created', 'created', created],
    ['Updated', 'updated', created],
    ['Version', 'version', 0],
    ['Stages', 'stages', null, true],
  ]);
}

/**
 * drone-go's Repo struct with every field, in its order (plugin/converter/remote.go toRepo). The
 * repository's signing key and webhook secret (Signer, Secret) are always empty: a template is
 * not a way to read them.
 */
export function goRepo(facts: LanguageFacts, extras: TemplateExtras): GoStruct {
  const r = facts.repo;
  return struct('drone.Repo', [
    ['ID', 'id', extras.repoId ?? 0],
    ['UID', 'uid', text(r.uid)],
    ['UserID', 'user_id', extras.repoUserId ?? 0],
    ['Namespace', 'namespace', text(r.namespace)],
    ['Name', 'name', text(r.name)],
    ['Slug', 'slug', text(r.slug)],
    ['SCM', 'scm', extras.repoScm ?? ''],
    ['HTTPURL', 'git_http_url', text(r.git_http_url)],
    ['SSHURL', 'git_ssh_url', text(r.git_ssh_url)],
    ['Link', 'link', text(r.link)],
    ['Branch', 'default_branch', text(r.branch)],
    ['Private', 'private', flag(r.private)],
    ['Visibility', 'visibility', text(r.visibility)],
    ['Active', 'active', flag(r.active)],
    ['Config', 'config_path', text(r.config)],
    ['Trusted', 'trusted', flag(r.trusted)],
    ['Protected', 'protected', flag(r.protected)],
    ['IgnoreForks', 'ignore_forks', flag(r.ignore_forks)],
    ['IgnorePulls', 'ignore_pull_requests', flag(r.ignore_pull_requests)],
    ['CancelPulls', 'auto_cancel_pull_requests', false],
    ['CancelPush', 'auto_cancel_pushes', false],
    ['CancelRunning', 'auto_cancel_running', false],
    ['Throttle', 'throttle', 0],
    ['Timeout', 'timeout', extras.repoTimeout ?? 0],
    ['Counter', 'counter', extras.repoCounter ?? 0],
    ['Synced', 'synced', 0],
    ['Created', 'created', 0],
    ['Updated', 'updated', 0],
    ['Version', 'version', 0],
    ['Signer', 'signer', '', true],
    ['Secret', 'secret', '', true],
    ['Build', 'build', goBuild(undefined, {})],
  ]);
}
