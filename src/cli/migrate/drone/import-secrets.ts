import type { SecretScope } from '../../../core/secret.js';
import { sealedWhy, type ImportContext } from './context.js';
import type { DroneRow } from './database.js';
import type { Kind } from './report.js';
import { bool, bytes, int, text } from './values.js';

/**
 * Repository secrets, then organization secrets: each value decrypted with Drone's key and handed
 * to svc's store, which encrypts it again with SVC_DATABASE_SECRET. A secret svc already has under
 * that name and scope is left as it is. An organization secret is bound to its namespace's
 * provider id by the first build that uses it, as svc does with secrets made through its API.
 */
export async function importSecrets(ctx: ImportContext): Promise<void> {
  for (const row of await ctx.drone.select('select * from secrets order by secret_id')) {
    const droneRepo = int(row, 'secret_repo_id');
    const name = text(row, 'secret_name');
    const item = `${ctx.droneSlugs.get(droneRepo) ?? `of Drone repository ${droneRepo}`} ${name}`;
    const repo = ctx.repos.get(droneRepo);
    if (repo === undefined) {
      ctx.report.skipped('secrets', item, 'its repository was not brought across');
      continue;
    }
    await importSecret(ctx, 'secrets', item, { kind: 'repo', repoId: repo.id }, row);
  }
  ctx.progress(ctx.report.line('secrets'));
  if (!ctx.tables.has('orgsecrets')) return;
  for (const row of await ctx.drone.select('select * from orgsecrets order by secret_id')) {
    const namespace = text(row, 'secret_namespace');
    const item = `${namespace} ${text(row, 'secret_name')}`;
    await importSecret(ctx, 'organization secrets', item, { kind: 'namespace', namespace }, row);
  }
  ctx.progress(ctx.report.line('organization secrets'));
}

async function importSecret(
  ctx: ImportContext,
  kind: Kind,
  item: string,
  scope: SecretScope,
  row: DroneRow,
): Promise<void> {
  const name = text(row, 'secret_name');
  if ((await ctx.svc.secrets.findName(scope, name)) !== undefined) {
    ctx.report.present(kind);
    return;
  }
  const data = ctx.cipher.open(bytes(row, 'secret_data'));
  if (data.kind === 'sealed') {
    ctx.report.skipped(kind, item, sealedWhy(ctx));
    return;
  }
  await ctx.svc.secrets.create({
    scope,
    name,
    data: data.value,
    pullRequest: bool(row, 'secret_pull_request'),
    pullRequestPush: bool(row, 'secret_pull_request_push'),
    namespaceUid: '',
    environment: '',
  });
  ctx.report.imported(kind);
}
