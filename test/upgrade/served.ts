/*
 * What the backup rehearsals check last: a fresh `svc server` on the restored database (and bucket)
 * serves the data set's builds and logs through the API.
 */
import { expect } from 'vitest';
import type { Datasource } from '../../src/core/datasource.js';
import { call } from '../api/client.js';
import { startGitHubDouble } from '../doubles/github/index.js';
import { freePort, serverEnv, startServer } from '../e2e/system.js';
import { datasourceSetting } from '../support/databases.js';
import { EXPECTED_UPGRADE_DATA, FIXTURE_SECRET_SETTING } from './upgrade-data.js';

const ADMIN_TOKEN = 'backup-admin-token-0123456789abc';
const REPO = EXPECTED_UPGRADE_DATA.repo.slug;

/** Runs `use` against a fresh server on the database (with `extraEnv`), then stops it. */
async function withServer<T>(
  datasource: Datasource,
  dir: string,
  extraEnv: Record<string, string>,
  use: (url: string) => Promise<T>,
): Promise<T> {
  const github = await startGitHubDouble({ enterprise: true });
  const port = await freePort();
  try {
    const server = await startServer({
      ...serverEnv(port, dir, github),
      SVC_DATABASE_DRIVER: datasource.driver,
      SVC_DATABASE_DATASOURCE: datasourceSetting(datasource),
      SVC_DATABASE_SECRET: FIXTURE_SECRET_SETTING,
      SVC_USER_CREATE: `username:backup-admin,machine:true,admin:true,token:${ADMIN_TOKEN}`,
      ...extraEnv,
    });
    try {
      return await use(`http://127.0.0.1:${port}`);
    } finally {
      await server.stop();
    }
  } finally {
    await github.close();
  }
}

const LOG_PATH = `/api/repos/${REPO}/builds/2/logs/1/2`;

/** A fresh server on the database serves the data set's builds and a log through the API. */
export function expectServed(
  datasource: Datasource,
  dir: string,
  extraEnv: Record<string, string>,
): Promise<void> {
  return withServer(datasource, dir, extraEnv, async (url) => {
    const builds = await call({ url }, `/api/repos/${REPO}/builds`, { token: ADMIN_TOKEN });
    expect(builds.status).toBe(200);
    expect((builds.json as { number: number; status: string }[]).map((b) => [b.number, b.status])).toEqual([
      [2, 'failure'],
      [1, 'success'],
    ]);
    const log = await call({ url }, LOG_PATH, { token: ADMIN_TOKEN });
    expect(log.status).toBe(200);
    expect((log.json as { out: string }[]).map((line) => line.out).join('')).toBe(
      EXPECTED_UPGRADE_DATA.builds[1]?.logs.test,
    );
  });
}

/** The status a fresh server on the database answers for the data set's log of build 2's step 2. */
export function servedLog(
  datasource: Datasource,
  dir: string,
  extraEnv: Record<string, string>,
): Promise<number> {
  return withServer(
    datasource,
    dir,
    extraEnv,
    async (url) => (await call({ url }, LOG_PATH, { token: ADMIN_TOKEN })).status,
  );
}
