/**
 * # HashiCorp Nomad double (HTTP API v1, one agent that is server and client, docker driver on Docker)
 *
 * A real HTTP server (127.0.0.1, random port unless told) answering the Nomad API that svc's Nomad
 * runner uses, built from public sources only (Nomad's API docs and the hashicorp/nomad source: the
 * agent's HTTP handlers, the state store, the scheduler's reconciler and feasibility checks, the task
 * runner and the docker driver; facts in /tmp/research/nomad.md). Tasks really run: the double stands
 * for a Nomad client whose Docker daemon is the double's engine (DOCKER_HOST), so a task's `volumes`
 * host path `/var/run/docker.sock` is bound to that engine's socket.
 *
 * Modelled:
 * - ACL: with `token`, calls without `X-Nomad-Token` / `Authorization: Bearer` get 403 `Permission
 *   denied` (a wrong token: `ACL token not found`).
 * - `PUT|POST /v1/jobs`, `PUT|POST /v1/job/:id` (register: Go-JSON type checks, api canonicalisation,
 *   Job.Validate and the namespace / node pool admission checks as 500 multierror texts, EnforceIndex,
 *   re-registration of an unchanged job = new eval only), `DELETE /v1/job/:id?purge=` (unknown job: empty
 *   success), `GET /v1/jobs` (prefix, namespace incl. `*`, meta), `/v1/job/:id`, `/summary`,
 *   `/allocations?all=`, `/evaluations`, `/v1/allocations`, `/v1/allocation/:id`, `/v1/evaluations`,
 *   `/v1/evaluation/:id` (+`/allocations`), `/v1/namespaces`, `/v1/namespace/:name`, `/v1/agent/self`
 *   (minimal), `/v1/status/leader`, `/v1/regions`. Every read is a blocking query (`index`, `wait`)
 *   on per-table raft indexes, with X-Nomad-Index / KnownLeader / LastContact.
 * - `GET /v1/client/fs/logs/:alloc` (plain or JSON frames, heartbeats, `follow` never ends by itself).
 * - Scheduling on one node (datacenter glob, drivers, constraints with every operand, CPU/memory/disk):
 *   blocked evaluations with FailedTGAllocs, retried when capacity frees; job status pending / running
 *   / dead; summaries; restart policy (attempts, delay with jitter, modes fail/delay); reschedule policy
 *   (attempts/interval, constant/exponential/fibonacci delays, delayed follow-up evals,
 *   RescheduleTracker, NextAllocation); lost allocations replaced.
 * - The docker driver: image (pulled when missing or `force_pull`, with `auth`), entrypoint, command,
 *   args, work_dir, volumes, mount, privileged (refused when `allowPrivileged: false`), network_mode,
 *   devices, labels, dns, extra_hosts, memory_hard_limit, cpu_hard_limit, shm_size, caps, sysctl,
 *   ulimit…; unknown keys fail validation; `${…}` interpolation (NOMAD_*, attr, meta, node); the alloc
 *   dir (alloc/, local/, secrets/) mounted at /alloc, /local, /secrets; logs copied to alloc/logs.
 * - Hooks: `loseNode()` (live allocations `lost`: DesiredStatus `stop`, DesiredDescription `alloc is lost
 *   since its node is down`; their ClientDescription stays the client's last, as in Nomad; containers
 *   killed; the node comes back and the server places replacements with PreviousAllocation) and
 *   `failAllocation()` (a `Driver Failure` event under a running task, which then fails per its
 *   restart policy).
 * - At start, containers and data dirs left by crashed instances (dead pid in their label / dir name)
 *   are removed; instances of live processes are left alone.
 *
 * Nomad behaviours worth knowing, reproduced on purpose: a job is `running` as soon as it has a live
 * allocation (even one whose ClientStatus is still `pending`); a stopped job stays readable (Stop
 * true, Status dead) until purged, and a purged job's allocations and evaluations stay readable; the
 * X-Nomad-Index of a read is its table's (jobs, allocs, evals…) last write, or the object's
 * ModifyIndex, so any write to the table wakes a blocking query; `${…}` in the driver `Config` is HCL:
 * an unknown variable fails the task (`Unknown variable: …`), `$${` escapes, while `Env` leaves unknown
 * references as written; relative `volumes` host paths are inside the task directory; containers are
 * removed as soon as they exit (logs stay in the alloc dir); unknown routes get an empty 404.
 *
 * Not modelled (calls are recorded in `unknownCalls`, with a note for fields and parameters): system /
 * sysbatch / periodic / parameterized semantics, deployments and update blocks, service jobs' success
 * restarts beyond the restart policy, task lifecycle hooks (all tasks of a group start together),
 * networks and ports, services, templates, artifacts, vault, consul, CSI / host volumes, the
 * `filter` expression and pagination, log rotation and `LogConfig.Disabled`, garbage collection, the
 * event stream, other fs and allocation routes (exec, stop, restart, signal), HCL expressions beyond
 * plain references, multi-region and multiple nodes.
 *
 * Deviations by default (options restore Nomad's behaviour): Nomad pulls `:latest` images every time
 * (`pullLatest: true`); the double uses a local copy because no registry is reachable in tests. Docker
 * `volumes` outside the alloc dir need the client's `docker.volumes.enabled`; the double enables it
 * (`volumesEnabled: false` refuses them as Nomad does). A blocked evaluation of a stopped job is
 * completed (Nomad leaves it to the garbage collector).
 */
import { mkdir } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism, hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { dockerClient, type DockerConnection } from '../../../src/engines/docker/client.js';
import { ClientAgent } from './client.js';
import { removeLeftovers } from './docker.js';
import { errorReply, HttpError, send } from './http.js';
import type { NodeInfo } from './model.js';
import { renderAllocStub, renderJob } from './render.js';
import { route, type Context, type UnknownCall } from './routes.js';
import { Scheduler } from './scheduler.js';
import { NomadState } from './state.js';
import { errorText, uuid, within } from './util.js';

export type { UnknownCall } from './routes.js';

export interface NomadDoubleOptions {
  /** Listening port (default: a free one) and address (default 127.0.0.1). */
  port?: number;
  host?: string;
  /** Turns ACLs on: this secret is the only valid token. */
  token?: string;
  region?: string;
  datacenter?: string;
  /** Namespaces besides `default`. */
  namespaces?: string[];
  nodeName?: string;
  nodeClass?: string;
  /** Node attributes (merged over kernel.name=linux, cpu.arch=amd64, driver.docker=1, …). */
  attributes?: Record<string, string>;
  meta?: Record<string, string>;
  /** What the node offers: CPU in MHz, memory and disk in MB. */
  resources?: { cpu?: number; memoryMB?: number; diskMB?: number };
  allowPrivileged?: boolean;
  volumesEnabled?: boolean;
  pullLatest?: boolean;
  /** The Docker engine (default: DOCKER_HOST). */
  docker?: DockerConnection;
  /** Root of the double's data directories (default: <tmp>/svc-nomad-double). */
  dataRoot?: string;
  /** The Nomad version the agent reports. */
  version?: string;
}

/** An allocation as the double shows it to tests: the AllocListStub plus its Docker containers. */
export type AllocationView = Record<string, unknown> & { ID: string; containers: Record<string, string[]> };

export interface NomadDouble {
  /** NOMAD_ADDR */
  readonly url: string;
  /** NOMAD_TOKEN when ACLs are on. */
  readonly token: string | undefined;
  /** Calls the double does not answer as Nomad would (unknown routes, unmodelled fields/parameters). */
  readonly unknownCalls: readonly UnknownCall[];
  /** Jobs as `GET /v1/job/:id` shows them. */
  jobs(): Record<string, unknown>[];
  /** Every allocation (also of purged jobs) with the ids of the containers of each task, oldest first. */
  allocations(): AllocationView[];
  /** The node goes down: live allocations become `lost` (containers killed); then it is up again. */
  loseNode(): Promise<void>;
  /** A driver failure under a running task of the allocation (throws if none runs). */
  failAllocation(allocID: string, message: string): Promise<void>;
  /** Stops the server and removes every container and alloc dir the double created. */
  close(): Promise<void>;
}

export async function startNomadDouble(options: NomadDoubleOptions = {}): Promise<NomadDouble> {
  const docker = dockerClient(options.docker ?? { host: process.env.DOCKER_HOST });
  const endpoint = docker.endpoint;
  const instance = uuid().slice(0, 8);
  const dataRoot = options.dataRoot ?? join(tmpdir(), 'svc-nomad-double');
  const dataDir = join(dataRoot, `${process.pid}-${instance}`);
  await within(
    removeLeftovers(docker, dataRoot).catch(() => undefined),
    30_000,
  );
  await mkdir(dataDir, { recursive: true });
  const region = options.region ?? 'global';
  const node: NodeInfo = {
    ID: uuid(),
    Name: options.nodeName ?? `nomad-double-${hostname()}`,
    Datacenter: options.datacenter ?? 'dc1',
    NodeClass: options.nodeClass ?? '',
    NodePool: 'default',
    Attributes: {
      'kernel.name': 'linux',
      'cpu.arch': 'amd64',
      'os.name': 'debian',
      'driver.docker': '1',
      'nomad.version': options.version ?? '1.10.5',
      'unique.hostname': hostname(),
      'cpu.numcores': String(availableParallelism()),
      ...options.attributes,
    },
    Meta: { ...options.meta },
    cpu: options.resources?.cpu ?? 64_000,
    memoryMB: options.resources?.memoryMB ?? 65_536,
    diskMB: options.resources?.diskMB ?? 1_048_576,
    status: 'ready',
  };
  const state = new NomadState(options.namespaces ?? []);
  const unknown: UnknownCall[] = [];
  const note = (method: string, path: string, text: string) => {
    if (!unknown.some((call) => call.path === path && call.note === text))
      unknown.push({ method, path, query: '', note: text });
  };
  const client = new ClientAgent({
    state,
    node,
    region,
    dataDir,
    instance,
    unmodelled: (what) => note('', '(client)', what),
    driver: {
      docker,
      engineSocket: 'socketPath' in endpoint ? endpoint.socketPath : undefined,
      allowPrivileged: options.allowPrivileged ?? true,
      volumesEnabled: options.volumesEnabled ?? true,
      pullLatest: options.pullLatest ?? false,
      totalCompute: node.cpu,
      cores: availableParallelism(),
    },
  });
  const scheduler = new Scheduler(state, node, client);
  client.scheduler = scheduler;
  const host = options.host ?? '127.0.0.1';
  const ctx: Context = {
    state,
    scheduler,
    client,
    node,
    region,
    token: options.token,
    version: options.version ?? '1.10.5',
    host,
    dataDir,
    unknown,
    note,
  };
  const streams = new Set<AbortController>();
  const server = createServer((req, res) => void serve(ctx, streams, req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}`,
    token: options.token,
    unknownCalls: unknown,
    jobs: () => [...state.jobs.values()].map(renderJob),
    allocations: () =>
      [...state.allocs.values()].map((alloc) => ({
        ...renderAllocStub(alloc),
        ID: alloc.ID,
        containers: structuredClone(alloc.containers),
      })),
    loseNode: () => client.loseNode(),
    failAllocation: async (allocID, message) => {
      if (!(await client.failAllocation(allocID, message)))
        throw new Error(`allocation ${allocID} has no running task`);
    },
    close: () => {
      closing ??= (async () => {
        scheduler.close();
        for (const stream of streams) stream.abort();
        state.wakeAll();
        server.closeAllConnections();
        await within(new Promise<void>((resolve) => server.close(() => resolve())), 5_000);
        await client.close();
        docker.close();
      })();
      return closing;
    },
  };
}

async function serve(ctx: Context, streams: Set<AbortController>, req: IncomingMessage, res: ServerResponse) {
  const abort = new AbortController();
  streams.add(abort);
  res.on('close', () => abort.abort());
  const url = new URL(req.url ?? '/', 'http://nomad');
  const pretty = url.searchParams.has('pretty') && url.searchParams.get('pretty') !== '0';
  try {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const reply = await route(ctx, {
      req,
      res,
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      body,
      signal: abort.signal,
    });
    if (reply !== undefined) send(res, reply, pretty);
  } catch (error) {
    try {
      send(res, errorReply(error instanceof HttpError ? error : new HttpError(500, errorText(error))), false);
    } catch {
      res.destroy(); // the client is gone
    }
  } finally {
    streams.delete(abort);
  }
}
