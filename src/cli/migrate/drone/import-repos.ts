import type { NewRepo, Repo, Visibility } from '../../../core/repo.js';
import type { ImportContext } from './context.js';
import type { DroneRow } from './database.js';
import { bool, int, millis, text } from './values.js';

/**
 * Drone's repositories, matched by the provider's id (`repo_uid`), never by name: one svc already
 * has under that id is left as it is, one svc has under the same name with another id is a
 * different repository and is skipped. Either way the build counter continues after Drone's last
 * number, so that a build number never means two builds.
 */
export async function importRepos(ctx: ImportContext): Promise<void> {
  for (const row of await ctx.drone.select('select * from repos order by repo_id')) {
    const droneId = int(row, 'repo_id');
    const namespace = text(row, 'repo_namespace');
    const name = text(row, 'repo_name');
    const slug = `${namespace}/${name}`;
    ctx.droneSlugs.set(droneId, slug);
    const uid = text(row, 'repo_uid');
    if (uid === '') {
      ctx.report.skipped(
        'repositories',
        slug,
        'Drone has no provider id for it (svc matches repositories by that id)',
      );
      continue;
    }
    let repo = await ctx.svc.repos.findUid(uid);
    if (repo !== undefined) {
      ctx.report.present('repositories');
    } else {
      const holder = await ctx.svc.repos.findSlug(namespace, name);
      if (holder !== undefined) {
        const theirs = holder.uid === '' ? 'no provider id' : `the provider id ${holder.uid}`;
        ctx.report.skipped(
          'repositories',
          slug,
          `svc has another repository under this name, with ${theirs} (Drone's has ${uid})`,
        );
        continue;
      }
      repo = await ctx.svc.repos.create(newRepo(ctx, row, { uid, namespace, name, slug }));
      ctx.report.imported('repositories');
    }
    ctx.repos.set(droneId, await continueCounter(ctx, repo, int(row, 'repo_counter')));
  }
  ctx.progress(ctx.report.line('repositories'));
}

/** Moves the repository's counter up to `counter` (never down); answers the repository as stored. */
export async function continueCounter(ctx: ImportContext, repo: Repo, counter: number): Promise<Repo> {
  if (counter <= repo.counter) return repo;
  await ctx.svc.repos.setCounter(repo.id, counter);
  return { ...repo, counter };
}

function newRepo(
  ctx: ImportContext,
  row: DroneRow,
  names: Pick<NewRepo, 'uid' | 'namespace' | 'name' | 'slug'>,
): NewRepo {
  const isPrivate = bool(row, 'repo_private');
  return {
    ...names,
    userId: ctx.users.get(int(row, 'repo_user_id')) ?? 0,
    namespaceUid: '',
    scm: ctx.scm,
    cloneUrl: text(row, 'repo_clone_url'),
    cloneUrlSsh: text(row, 'repo_ssh_url'),
    link: text(row, 'repo_html_url'),
    defaultBranch: text(row, 'repo_branch'),
    private: isPrivate,
    visibility: visibility(text(row, 'repo_visibility'), isPrivate),
    active: bool(row, 'repo_active'),
    configPath: text(row, 'repo_config'),
    trusted: bool(row, 'repo_trusted'),
    protected: bool(row, 'repo_protected'),
    ignoreForks: bool(row, 'repo_no_forks'),
    ignorePullRequests: bool(row, 'repo_no_pulls'),
    cancelPulls: bool(row, 'repo_cancel_pulls'),
    cancelPush: bool(row, 'repo_cancel_push'),
    cancelRunning: bool(row, 'repo_cancel_running'),
    forkIdTokens: false,
    throttle: int(row, 'repo_throttle'),
    // svc's default for every repository: pull requests from forks wait for approval.
    approval: 'forks',
    // Drone's names are crossed: its `secret` signs and encrypts pipeline files (svc's signing
    // key), its `signer` signs the provider's webhooks (svc's hook secret). Kept, so signed files,
    // encrypted secrets and the hooks the provider already has keep working.
    signingKey: text(row, 'repo_secret'),
    hookSecret: text(row, 'repo_signer'),
    timeout: int(row, 'repo_timeout') || 60,
    synced: millis(row, 'repo_synced'),
  };
}

function visibility(value: string, isPrivate: boolean): Visibility {
  if (value === 'public' || value === 'private' || value === 'internal') return value;
  return isPrivate ? 'private' : 'public';
}
