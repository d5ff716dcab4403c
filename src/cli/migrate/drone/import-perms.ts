import type { Repo } from '../../../core/repo.js';
import type { ImportContext } from './context.js';
import { bool, int, millis, text } from './values.js';

/**
 * Drone's permissions (user × repository, as the provider said at Drone's last sync). svc syncs
 * them again from the provider at each person's login; brought across, they let people see their
 * repositories before that. A permission svc already has is left as it is.
 */
export async function importPerms(ctx: ImportContext): Promise<void> {
  // Drone's permissions name the repository by the provider's id.
  const byUid = new Map<string, Repo>([...ctx.repos.values()].map((repo) => [repo.uid, repo]));
  const slugs = new Map<string, string>();
  for (const row of await ctx.drone.select('select repo_uid, repo_namespace, repo_name from repos')) {
    slugs.set(text(row, 'repo_uid'), `${text(row, 'repo_namespace')}/${text(row, 'repo_name')}`);
  }
  for (const row of await ctx.drone.select('select * from perms order by perm_user_id, perm_repo_uid')) {
    const droneUser = int(row, 'perm_user_id');
    const repoUid = text(row, 'perm_repo_uid');
    const item = `of ${ctx.droneLogins.get(droneUser) ?? `Drone user ${droneUser}`} on ${slugs.get(repoUid) ?? `the repository of provider id ${repoUid}`}`;
    const userId = ctx.users.get(droneUser);
    const repo = byUid.get(repoUid);
    if (userId === undefined || repo === undefined) {
      ctx.report.skipped(
        'permissions',
        item,
        `its ${userId === undefined ? 'user' : 'repository'} was not brought across`,
      );
      continue;
    }
    if ((await ctx.svc.perms.find(userId, repo.id)) !== undefined) {
      ctx.report.present('permissions');
      continue;
    }
    await ctx.svc.perms.upsert({
      userId,
      repoId: repo.id,
      read: bool(row, 'perm_read'),
      write: bool(row, 'perm_write'),
      admin: bool(row, 'perm_admin'),
      synced: millis(row, 'perm_synced'),
    });
    ctx.report.imported('permissions');
  }
  ctx.progress(ctx.report.line('permissions'));
}
