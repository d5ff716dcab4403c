import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../core/store.js';
import { openStore } from '../../store/index.js';
import { Authenticator, SessionCookies } from '../auth/index.js';
import { seedUser } from '../bootstrap/seed-user.js';
import { handleError } from '../http-errors.js';
import { InMemoryLiveLogs } from '../logs/live-logs.js';
import { HeldEntries } from '../../platform/metrics/held-entries.js';
import { ProcessGauges } from '../../platform/metrics/process-gauges.js';
import { metricsRoute } from './metrics.js';
import { newBuild, newRepo, newStage, runnerRegistration } from '../../store/cases/fixtures.case.js';

const ADMIN = 'a'.repeat(32);
const USER = 'u'.repeat(32);

/** The value of the sample `name{labels}` in a Prometheus text answer. */
function sample(text: string, name: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.slice(name.length + 1));
}

describe('GET /metrics: the process gauges', () => {
  let dir: string;
  let store: Store;
  let app: FastifyInstance;
  let processGauges: ProcessGauges;
  const liveLogs = new InMemoryLiveLogs();

  const start = async (anonymous: boolean): Promise<void> => {
    const sessions = new SessionCookies({ secret: 'metrics-test', timeoutMs: 60_000, secure: false });
    const held = new HeldEntries();
    held.add('live_logs', liveLogs);
    processGauges = new ProcessGauges();
    processGauges.start();
    app = Fastify();
    app.setErrorHandler(handleError);
    metricsRoute(app, {
      auth: new Authenticator({ users: store.users, sessions }),
      store,
      anonymous,
      process: processGauges,
      held,
    });
    await app.ready();
  };
  const get = (url: string, token?: string) =>
    app.inject({ url, headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-metrics-'));
    store = await openStore({ datasource: { driver: 'embedded_sql', path: join(dir, 'svc.sqlite') } });
    await seedUser(store.users, { username: 'ops', machine: true, admin: true, token: ADMIN });
    await seedUser(store.users, { username: 'dev', machine: true, admin: false, token: USER });
  });
  afterEach(async () => {
    processGauges.stop();
    await app.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('shows memory, the heap after a full collection, handles, descriptors, connections and map sizes', async () => {
    await start(false);
    const unsubscribe = liveLogs.subscribe(
      7,
      () => undefined,
      () => undefined,
    );
    const answer = await get('/metrics?gc=full', ADMIN);
    unsubscribe();
    expect(answer.statusCode).toBe(200);
    const text = answer.body;
    expect(text).toContain('# TYPE svc_process_heap_after_gc_bytes gauge\n');
    expect(sample(text, 'svc_process_resident_memory_bytes')).toBeGreaterThan(10 * 1024 * 1024);
    const afterGc = sample(text, 'svc_process_heap_after_gc_bytes') ?? 0;
    // Just collected: far from nothing, and within the process's memory. (Not compared with the heap
    // in use now: what the answer itself allocated after the collection may make either larger.)
    expect(afterGc).toBeGreaterThan(1024 * 1024);
    expect(afterGc).toBeLessThan(sample(text, 'svc_process_resident_memory_bytes') ?? 0);
    expect(sample(text, 'svc_process_heap_used_bytes')).toBeGreaterThan(1024 * 1024);
    expect(sample(text, 'svc_process_full_gcs')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'svc_process_v8_malloced_bytes')).toBeGreaterThan(0);
    expect(sample(text, 'svc_process_heap_space_used_bytes{space="code_space"}')).toBeGreaterThan(0);
    expect(sample(text, 'svc_process_heap_space_used_bytes{space="old_space"}')).toBeGreaterThan(0);
    // The store's SQLite file is open in this process, among others.
    expect(sample(text, 'svc_process_open_fds')).toBeGreaterThan(3);
    expect(text).toMatch(/^svc_process_active_resources\{type="[A-Za-z]+"\} \d+$/m);
    expect(sample(text, 'svc_database_connections{state="open"}')).toBe(1);
    expect(sample(text, 'svc_database_connections{state="idle"}')).toBe(1);
    expect(sample(text, 'svc_database_statements')).toBeGreaterThan(0);
    expect(sample(text, 'svc_memory_entries{holder="live_logs.watched_steps"}')).toBe(1);
    expect(sample(text, 'svc_memory_entries{holder="live_logs.subscribers"}')).toBe(1);
    // Drone's gauges come first, unchanged.
    expect(sample(text, 'svc_user_count')).toBe(2);

    const later = await get('/metrics', ADMIN);
    expect(sample(later.body, 'svc_memory_entries{holder="live_logs.watched_steps"}')).toBe(0);
  });

  it('collects garbage for administrators only, also when anyone may read the metrics', async () => {
    await start(true);
    expect((await get('/metrics')).statusCode).toBe(200);
    expect((await get('/metrics?gc=full')).statusCode).toBe(401);
    expect((await get('/metrics?gc=full', USER)).statusCode).toBe(403);
    expect((await get('/metrics?gc=yes', ADMIN)).statusCode).toBe(400);
    const before = processGauges.read().fullCollections;
    expect((await get('/metrics?gc=full', ADMIN)).statusCode).toBe(200);
    expect(processGauges.read().fullCollections).toBeGreaterThan(before);
  });

  it('shows the insight rollups as counters and histograms that Prometheus can add up', async () => {
    await start(false);
    const repo = await store.repos.create(newRepo());
    const finished = (succeeded: boolean, durationMs: number, queueMs: number) => ({
      repoId: repo.id,
      day: 20_000,
      succeeded,
      durationMs,
      queueMs,
      steps: [],
      stages: [{ kind: 'docker', busyMs: durationMs }],
      failedTests: [4],
      flakyTests: [],
    });
    await store.insights.record(1, finished(true, 90_000, 500));
    await store.insights.record(2, finished(false, 3_000, 30_000));
    await store.insights.countCache(repo.id, 20_000, true);
    const text = (await get('/metrics', ADMIN)).body;
    expect(text).toContain('# TYPE svc_builds_finished_total counter\n');
    expect(sample(text, 'svc_builds_finished_total')).toBe(2);
    expect(sample(text, 'svc_builds_succeeded_total')).toBe(1);
    expect(text).toContain('# TYPE svc_build_duration_seconds histogram\n');
    // Bounds are rollup buckets' ends: 3 s is under 5.96 s, 90 s under 211.8 s, not under 86.7 s.
    expect(sample(text, 'svc_build_duration_seconds_bucket{le="1"}')).toBe(0);
    expect(sample(text, 'svc_build_duration_seconds_bucket{le="5.96046"}')).toBe(1);
    expect(sample(text, 'svc_build_duration_seconds_bucket{le="86.7362"}')).toBe(1);
    expect(sample(text, 'svc_build_duration_seconds_bucket{le="211.758"}')).toBe(2);
    expect(sample(text, 'svc_build_duration_seconds_bucket{le="+Inf"}')).toBe(2);
    expect(sample(text, 'svc_build_duration_seconds_count')).toBe(2);
    expect(sample(text, 'svc_build_duration_seconds_sum')).toBe(93);
    expect(sample(text, 'svc_build_queue_seconds_bucket{le="1"}')).toBe(1);
    expect(sample(text, 'svc_build_queue_seconds_sum')).toBe(30.5);
    expect(sample(text, 'svc_runner_stages_total{kind="docker"}')).toBe(2);
    expect(sample(text, 'svc_runner_busy_seconds_total{kind="docker"}')).toBe(93);
    expect(sample(text, 'svc_cache_restores_total{result="hit"}')).toBe(1);
    expect(sample(text, 'svc_cache_restores_total{result="miss"}')).toBe(0);
    expect(sample(text, 'svc_test_failures_total')).toBe(2);
    expect(sample(text, 'svc_test_flaky_total')).toBe(0);
    // Every bucket line is cumulative: never fewer builds under a larger bound.
    const counts = [...text.matchAll(/^svc_build_duration_seconds_bucket\{le="[^"]+"\} (\d+)$/gm)].map((m) =>
      Number(m[1]),
    );
    expect(counts).toHaveLength(17);
    expect(counts).toEqual([...counts].sort((x, y) => x - y));
  });

  it('shows the present runners’ capacity against the stages running, by kind, for utilisation', async () => {
    await start(false);
    await store.runners.register(runnerRegistration({ capacity: 4 }));
    await store.runners.register(runnerRegistration({ capacity: 2 }));
    await store.runners.register(
      runnerRegistration({ kind: 'kubernetes', type: 'kubernetes', capacity: 10 }),
    );
    // Gone quiet six minutes ago: no longer counted.
    await store.runners.register(runnerRegistration({ capacity: 8, lastSeen: Date.now() - 6 * 60_000 }));
    const repo = await store.repos.create(newRepo());
    await store.builds.create(newBuild(repo.id, { status: 'running' }), [
      newStage(1, 1, { status: 'running', type: 'docker' }),
      newStage(2, 1, { status: 'running', type: 'docker' }),
      newStage(3, 1, { status: 'running', type: 'kubernetes' }),
      newStage(4, 1, { status: 'pending', type: 'kubernetes' }),
    ]);
    const text = (await get('/metrics', ADMIN)).body;
    expect(sample(text, 'svc_runners_present{kind="docker"}')).toBe(2);
    expect(sample(text, 'svc_runner_capacity{kind="docker"}')).toBe(6);
    expect(sample(text, 'svc_runner_capacity{kind="kubernetes"}')).toBe(10);
    expect(sample(text, 'svc_runner_running_stages{kind="docker"}')).toBe(2);
    expect(sample(text, 'svc_runner_running_stages{kind="kubernetes"}')).toBe(1);
  });
});
