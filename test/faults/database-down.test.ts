/**
 * Fault: the database unavailable for 30 s while a build writes its log (issue 15). A private
 * PostgreSQL and a private MariaDB are stopped and started again on the same folder and port; a
 * SQLite file is locked by another process (BEGIN EXCLUSIVE). svc promises:
 *  - the API answers 503 DATABASE_UNAVAILABLE with a message — never 500, never a stack — and
 *    /healthz answers 503 (SQLite: reads go on under another process's write lock; writes answer 503);
 *  - the server keeps running, the runner backs off and keeps its lines and results;
 *  - once the database is back, everything resumes without a restart: the build completes with
 *    every line of its log stored exactly once.
 * Each case prints what it measured: answers during the outage, time from the database's return
 * to the first successful API answer and to the build's end, lines lost and duplicated.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dockerForTests } from '../../src/engines/docker/testing.case.js';
import {
  privateDatabasesAvailable,
  startPrivateMariadb,
  startPrivatePostgres,
  type PrivateDatabase,
} from '../support/private-databases.js';
import { inCi } from '../support/services.js';
import { FaultFrame, probeWhile, type Probe } from './build-probes.js';
import { lockSqlite } from './sqlite-locker.js';

const docker = await dockerForTests(['local/busybox']);

const OUTAGE_MS = 30_000;
/** ~50 s of output, 0.1 s apart: the step writes before, during and after the outage. */
const LINES = 450;
const PAUSE = 0.1;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function summary(answers: readonly Probe[]): string {
  const counts = new Map<string, number>();
  for (const a of answers) {
    const key = `${a.path.startsWith('/healthz') ? 'healthz' : a.path} ${a.status}${a.code ? ` ${a.code}` : ''}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const slowest = Math.max(0, ...answers.map((a) => a.ms));
  return `${[...counts].map(([key, n]) => `${n}× ${key}`).join(', ')}; slowest answer ${slowest} ms`;
}

const unavailable = (a: Probe) =>
  a.status === 503 &&
  a.code === 'DATABASE_UNAVAILABLE' &&
  a.message === 'the database is unavailable; try again in a few seconds';

const servers: { name: string; start: () => Promise<PrivateDatabase> }[] = [
  { name: 'PostgreSQL', start: startPrivatePostgres },
  { name: 'MariaDB', start: startPrivateMariadb },
];

describe.skipIf(docker.skip).concurrent('faults: the database unavailable for 30 s', () => {
  for (const { name, start } of servers) {
    const missing = !privateDatabasesAvailable[name as PrivateDatabase['name']];
    if (missing && inCi) throw new Error(`${name}'s server binaries are required in CI`);
    it.skipIf(missing)(
      `${name} stopped and started: 503 meanwhile, then the build completes whole`,
      async () => {
        const db = await start();
        let frame: FaultFrame | undefined;
        try {
          frame = await FaultFrame.start(`db-down-${name.toLowerCase()}`, db.settings);
          await frame.startBuild(LINES, PAUSE, 20);
          await db.stop();
          const f = frame;
          const during = await probeWhile(sleep(OUTAGE_MS), 1_000, async () => [
            await f.read(),
            await f.probe('/healthz'),
          ]);
          await db.start();
          const backAt = Date.now();
          const apiMs = await frame.recovered(() => f.read(), backAt);
          const result = await frame.finished(LINES);
          const buildMs = Date.now() - backAt;
          const answered = frame.answered();
          console.info(
            `faults: ${name} down ${OUTAGE_MS / 1000} s: ${summary(during)}; API back ${apiMs} ms and build ${result.build.status} ${Math.round(buildMs / 1000)} s after the database; ${result.lost} lines lost, ${result.duplicated} duplicated; the server answered ${answered.rpc} runner requests and ${answered.api} API requests 503/507, ${answered.internal} 500`,
          );
          expect(during.filter((a) => a.path !== '/healthz').every(unavailable)).toBe(true);
          expect(during.filter((a) => a.path === '/healthz').every((a) => a.status === 503)).toBe(true);
          expect(during.length).toBeGreaterThan(20);
          expect(answered.rpc).toBeGreaterThan(0);
          expect(answered.internal).toBe(0);
          expect(frame.e2e.server.child.exitCode).toBeNull();
          expect(frame.runner.child.exitCode).toBeNull();
          expect(result.build.status).toBe('success');
          expect(result).toMatchObject({ lost: 0, duplicated: 0 });
        } finally {
          await frame?.stop();
          await db.destroy();
        }
      },
      240_000,
    );
  }

  it('SQLite locked by another process: writes answer 503, reads go on, then the build completes whole', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-locked-'));
    const file = join(dir, 'svc.sqlite');
    let frame: FaultFrame | undefined;
    try {
      frame = await FaultFrame.start('db-locked-sqlite', { driver: 'embedded_sql', datasource: file });
      await frame.startBuild(LINES, PAUSE, 20);
      const lock = await lockSqlite(file);
      const f = frame;
      const during = await probeWhile(sleep(OUTAGE_MS), 1_000, async () => [
        await f.write(),
        await f.read(),
        await f.probe('/healthz'),
      ]);
      await lock.release();
      const backAt = Date.now();
      const apiMs = await frame.recovered(() => f.write(), backAt);
      const result = await frame.finished(LINES);
      const buildMs = Date.now() - backAt;
      const answered = frame.answered();
      console.info(
        `faults: SQLite locked ${OUTAGE_MS / 1000} s: ${summary(during)}; writes back ${apiMs} ms and build ${result.build.status} ${Math.round(buildMs / 1000)} s after the lock; ${result.lost} lines lost, ${result.duplicated} duplicated; the server answered ${answered.rpc} runner requests and ${answered.api} API requests 503/507, ${answered.internal} 500`,
      );
      const writes = during.filter((a) => a.path.endsWith('/secrets'));
      expect(writes.length).toBeGreaterThan(5);
      expect(writes.every(unavailable)).toBe(true);
      // WAL mode: another process's write lock does not stop readers.
      expect(during.filter((a) => a.path.endsWith('/builds/1')).every((a) => a.status === 200)).toBe(true);
      expect(answered.rpc).toBeGreaterThan(0);
      expect(answered.internal).toBe(0);
      expect(frame.e2e.server.child.exitCode).toBeNull();
      expect(frame.runner.child.exitCode).toBeNull();
      expect(result.build.status).toBe('success');
      expect(result).toMatchObject({ lost: 0, duplicated: 0 });
    } finally {
      await frame?.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 240_000);
});
