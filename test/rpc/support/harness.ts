/*
 * Test support for the runner protocol: a real fastify app with registerRpcRoutes on a real store,
 * listening on a loopback port, plus fixtures to queue builds and a client to call it.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import pino from 'pino';
import type { Build, NewBuild } from '../../../src/core/build.js';
import type { BuildListener } from '../../../src/core/events.js';
import type { LogLine } from '../../../src/core/log.js';
import type { Repo, NewRepo } from '../../../src/core/repo.js';
import type { ScmNetrc } from '../../../src/core/scm.js';
import type { NewStage, Stage } from '../../../src/core/stage.js';
import type { Store } from '../../../src/core/store.js';
import { InMemoryLiveLogs } from '../../../src/server/logs/live-logs.js';
import { HeldEntries } from '../../../src/platform/metrics/held-entries.js';
import { BuildWatches } from '../../../src/server/queue/build-watches.js';
import { StageQueue } from '../../../src/server/queue/stage-queue.js';
import { registerRpcRoutes, type RpcTimeouts } from '../../../src/server/rpc/index.js';
import { ArtifactService } from '../../../src/server/artifacts/service.js';
import { CacheService } from '../../../src/server/caches/service.js';
import { DiskBlobStore } from '../../../src/store/blobs/disk-blobs.js';
import { newBuild, newRepo, newStage } from '../../../src/store/cases/fixtures.case.js';
import { openStore } from '../../../src/store/index.js';
import type { TestDialect } from '../../support/databases.js';
import type { ReaperSettings } from '../../../src/server/queue/reaper.js';

export const SECRET = 'rpc-secret-for-tests';

/** Live logs that also remember every line published, per step, for tests to compare. */
export class RecordingLiveLogs extends InMemoryLiveLogs {
  readonly published = new Map<number, LogLine[]>();

  override publish(stepId: number, lines: readonly LogLine[]): void {
    this.published.set(stepId, [...(this.published.get(stepId) ?? []), ...lines]);
    super.publish(stepId, lines);
  }
}

/** What the listener heard, in order. */
export type Heard = Parameters<BuildListener['buildUpdated']>[0];

/** Options of a test server. */
export interface ServerOptions {
  timeouts?: RpcTimeouts;
  /** Long-poll and re-check of the stage queue. */
  longPoll?: number;
  recheck?: number;
  netrc?: ScmNetrc;
  /** Reuse this store (a second server replica, or a restart). */
  store?: Store;
  /** Listen on this port (a restart on the same address). */
  port?: number;
  listener?: BuildListener;
  reaper?: ReaperSettings;
  /** SVC_RPC_SECRET_DISABLED. */
  sharedSecretDisabled?: boolean;
}

/** One running server: its app, its parts and a client. */
export interface TestServer {
  url: string;
  port: number;
  app: FastifyInstance;
  store: Store;
  queue: StageQueue;
  watches: BuildWatches;
  liveLogs: RecordingLiveLogs;
  heard: Heard[];
  /** The sizes of the protocol's in-memory maps, as /metrics shows them. */
  gauges: HeldEntries;
  call(method: string, path: string, body?: unknown, token?: string | null): Promise<Response>;
  close(): Promise<void>;
}

/** Starts a server on a loopback port over `store`. */
export async function startServer(store: Store, options: ServerOptions = {}): Promise<TestServer> {
  const heard: Heard[] = [];
  const listener: BuildListener = options.listener ?? {
    buildUpdated: (change) => {
      heard.push(structuredClone(change));
      return Promise.resolve();
    },
  };
  const liveLogs = new RecordingLiveLogs();
  const queue = new StageQueue({
    store,
    longPoll: options.longPoll ?? 2_000,
    recheck: options.recheck ?? 1_000,
  });
  const watches = new BuildWatches({ builds: store.builds, recheck: 200 });
  const app = Fastify({ forceCloseConnections: true }) as unknown as FastifyInstance;
  const gauges = new HeldEntries();
  const blobs = new DiskBlobStore(mkdtempSync(join(tmpdir(), 'svc-rpc-files-')));
  registerRpcRoutes(app, {
    gauges,
    store,
    listener,
    liveLogs,
    secret: SECRET,
    system: { proto: 'https', host: 'ci.example.com', version: '1.2.3' },
    netrcFor: () => Promise.resolve(options.netrc),
    logger: pino({ level: 'silent' }),
    queue,
    watches,
    timeouts: { watch: 2_000, ...options.timeouts },
    reaper: options.reaper,
    sharedSecretDisabled: options.sharedSecretDisabled ?? false,
    // Caches and artifacts on a disk of their own: their routes are held to the same rules.
    caches: new CacheService({ store: store.caches, blobs, limits: { maxSize: 2 ** 30, maxAge: 3_600_000 } }),
    artifacts: new ArtifactService({
      store: store.artifacts,
      blobs,
      limits: { maxSize: 2 ** 30, maxAge: 3_600_000 },
    }),
  });
  await app.listen({ host: '127.0.0.1', port: options.port ?? 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    port,
    app,
    store,
    queue,
    watches,
    liveLogs,
    heard,
    gauges,
    call: (method, path, body, token = SECRET) =>
      fetch(`${url}${path}`, {
        method,
        headers: {
          ...(token === null ? {} : { 'X-SVC-Token': token }),
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    close: () => app.close(),
  };
}

/** A fresh store on a fresh database of `dialect`, and how to get rid of both. */
export async function freshStore(
  dialect: TestDialect,
): Promise<{ store: Store; dispose: () => Promise<void> }> {
  const database = await dialect.create();
  const store = await openStore({ datasource: database.datasource });
  return {
    store,
    dispose: async () => {
      await store.close();
      await database.drop();
    },
  };
}

/** A stage of `queueBuild`: a name and what differs from a plain pending docker stage. */
export type StageSpec = { name: string } & Partial<Omit<NewStage, 'repoId' | 'buildId' | 'number'>>;

/** Creates a repository and a build with `stages` (no steps, as the build-creation code does). */
export async function queueBuild(
  store: Store,
  stages: StageSpec[],
  options: { repo?: Partial<NewRepo>; build?: Partial<NewBuild>; existingRepo?: Repo } = {},
): Promise<{ repo: Repo; build: Build; stages: Stage[] }> {
  const repo = options.existingRepo ?? (await store.repos.create(newRepo(options.repo)));
  const created = await store.builds.create(
    newBuild(repo.id, { sourceRepo: repo.slug, ...options.build }),
    stages.map(({ name, ...fields }, i) =>
      newStage(i + 1, 0, {
        name,
        status: (fields.dependsOn?.length ?? 0) > 0 ? 'waiting_on_dependencies' : 'pending',
        ...fields,
      }),
    ),
  );
  return { repo, ...created };
}

/** Reads a JSON answer, failing with the body when the status is not `status`. */
export async function json<T>(response: Response, status = 200): Promise<T> {
  const text = await response.text();
  if (response.status !== status) throw new Error(`expected ${status}, got ${response.status}: ${text}`);
  return JSON.parse(text) as T;
}
