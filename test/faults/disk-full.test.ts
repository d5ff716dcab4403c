/**
 * Fault: the disk under the SQLite database fills up while a build writes its log (issue 15). svc
 * keeps finished logs in the database or in an object store, never in files of its own, so the
 * SQLite file (with its WAL) is all there is to fill: it lives on a small tmpfs the test mounts,
 * and a filler file takes every free byte. svc promises:
 *  - writes answer 507 DATABASE_FULL with a message naming the database and the disk — never 500,
 *    never a stack — and the server keeps running;
 *  - once space is freed, writes and the build resume without a restart, and the log is whole;
 *  - the file is not corrupted: `PRAGMA integrity_check` answers `ok` afterwards.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, rmdirSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerForTests } from '../../src/engines/docker/testing.case.js';
import { inCi } from '../support/services.js';
import { FaultFrame, probeWhile, type Probe } from './build-probes.js';

const docker = await dockerForTests(['local/busybox']);

/** Mounting needs root (CI runs as root); elsewhere the test is skipped, saying so. */
const root = process.getuid?.() === 0;
if (!root && inCi) throw new Error('the disk-full test needs root to mount a tmpfs');
if (!root) console.warn('skipping the disk-full test: mounting a tmpfs needs root');

/** Room for the database, its WAL and the build's log, but not for much more. */
const TMPFS = '24m';
const LINES = 400;
const PAUSE = 0.1;
const FULL_FOR_MS = 10_000;

/** Takes every free byte of the file system of `file`; returns how many. */
function fill(file: string): number {
  const fd = openSync(file, 'w');
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  let written = 0;
  try {
    for (;;) written += writeSync(fd, chunk);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    closeSync(fd);
  }
  return written;
}

const full = (a: Probe) =>
  a.status === 507 &&
  a.code === 'DATABASE_FULL' &&
  a.message === 'the database is out of disk space; try again once space is freed';

describe.skipIf(docker.skip || !root)('faults: the disk of the SQLite database full', () => {
  let mount = '';
  beforeAll(() => {
    mount = mkdtempSync(join(tmpdir(), 'svc-disk-full-'));
    const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${TMPFS}`, 'tmpfs', mount], {
      encoding: 'utf8',
    });
    if (mounted.status !== 0) throw new Error(`cannot mount a tmpfs: ${mounted.stderr}`);
  });
  afterAll(() => {
    if (mount === '') return;
    // A process that still holds a file there (a failed test's server) must not keep the mount.
    if (spawnSync('umount', [mount]).status !== 0) spawnSync('umount', ['-l', mount]);
    rmdirSync(mount);
  });

  it('answers 507 DATABASE_FULL while full, resumes once space is freed, and the file stays intact', async () => {
    const file = join(mount, 'svc.sqlite');
    const filler = join(mount, 'filler');
    const frame = await FaultFrame.start('disk-full', { driver: 'embedded_sql', datasource: file });
    let stopped = false;
    try {
      await frame.startBuild(LINES, PAUSE, 20);
      const filled = fill(filler);
      const filledAt = Date.now();
      // Space the WAL already holds is reused; writes fail once they need a new page on disk.
      const until = Date.now() + 30_000;
      const before: Probe[] = [];
      while (Date.now() < until && !before.some(full)) {
        before.push(await frame.write());
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      const during = await probeWhile(
        new Promise((resolve) => setTimeout(resolve, FULL_FOR_MS)),
        1_000,
        async () => [await frame.write(), await frame.read()],
      );
      rmSync(filler);
      const freedAt = Date.now();
      const writeMs = await frame.recovered(() => frame.write(), freedAt);
      const result = await frame.finished(LINES);
      const buildMs = Date.now() - freedAt;
      const answered = frame.answered();
      const failed = [...before, ...during].filter((a) => a.status !== 200);
      console.info(
        `faults: disk full (${Math.round(filled / 1024)} KiB filled, first 507 after ${before.length} writes, ${Math.round((freedAt - filledAt) / 1000)} s full): ${failed.length} failed answers, all 507: ${failed.every(full)}; writes back ${writeMs} ms and build ${result.build.status} ${Math.round(buildMs / 1000)} s after space was freed; ${result.lost} lines lost, ${result.duplicated} duplicated; the server answered ${answered.rpc} runner requests and ${answered.api} API requests 503/507, ${answered.internal} 500`,
      );
      expect(before.some(full)).toBe(true);
      expect(failed.every(full)).toBe(true);
      // Reads need no space.
      expect(during.filter((a) => a.path.endsWith('/builds/1')).every((a) => a.status === 200)).toBe(true);
      expect(answered.rpc).toBeGreaterThan(0);
      expect(answered.internal).toBe(0);
      expect(frame.e2e.server.child.exitCode).toBeNull();
      expect(result.build.status).toBe('success');
      expect(result).toMatchObject({ lost: 0, duplicated: 0 });
      expect(frame.e2e.server.log()).toMatch(/out of disk space: database or disk is full/);

      await frame.stop();
      stopped = true;
      const database = new Database(file, { readonly: true });
      try {
        expect(database.pragma('integrity_check')).toEqual([{ integrity_check: 'ok' }]);
      } finally {
        database.close();
      }
    } finally {
      if (!stopped) await frame.stop();
    }
  }, 180_000);
});
