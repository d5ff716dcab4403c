/*
 * The agent's routes the double answers (command/agent/http.go registerHandlers), dispatched like
 * Nomad's mux: `/v1/job/<id>/<suffix>` by suffix, 405 `Invalid method` for a wrong method, and the root
 * fallthrough's empty 404 for anything else (recorded in `unknownCalls`, as are real Nomad routes the
 * double does not model). Reads are blocking queries; `region` other than the agent's fails with
 * `No path to region` as the forwarding would.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ClientAgent } from './client.js';
import { blockingRead, boolParam, checkToken, HttpError, parseGoBool, type Reply } from './http.js';
import { deregisterJob, listJobs, readJob, registerJob } from './jobs.js';
import { streamLog } from './logs.js';
import type { NodeInfo } from './model.js';
import { renderAlloc, renderAllocStub, renderEval } from './render.js';
import type { Scheduler } from './scheduler.js';
import type { NomadState } from './state.js';

export interface UnknownCall {
  method: string;
  path: string;
  query: string;
  /** Set for a known call that used something the double does not model. */
  note?: string;
}

export interface Context {
  state: NomadState;
  scheduler: Scheduler;
  client: ClientAgent;
  node: NodeInfo;
  region: string;
  token: string | undefined;
  version: string;
  /** The agent's address (for /v1/status/leader). */
  host: string;
  dataDir: string;
  unknown: UnknownCall[];
  /** Records a known call's use of something the double does not model. */
  note(method: string, path: string, note: string): void;
}

export interface Request {
  req: IncomingMessage;
  res: ServerResponse;
  method: string;
  path: string;
  query: URLSearchParams;
  body: string;
  signal: AbortSignal;
}

const JOB_SUFFIXES = ['evaluate', 'plan', 'periodic/force', 'dispatch', 'versions', 'revert', 'deployments'];
JOB_SUFFIXES.push('deployment', 'stable', 'scale', 'services', 'submission', 'actions', 'action', 'tag');

/** Answers `r`; resolves with undefined when the answer was streamed (logs). */
export async function route(ctx: Context, r: Request): Promise<Reply | undefined> {
  const { method, path, query } = r;
  const unknown = (note?: string): Reply => {
    ctx.unknown.push({ method, path, query: query.toString(), ...(note === undefined ? {} : { note }) });
    return { status: 404 };
  };
  const only = (...methods: string[]) => {
    if (!methods.includes(method)) throw new HttpError(405, 'Invalid method');
  };
  for (const param of ['filter', 'per_page', 'next_token', 'reverse']) {
    if (query.has(param)) ctx.note(method, path, `query parameter ${param} is not modelled`);
  }
  if (path === '/v1/status/leader' || path === '/v1/regions') {
    return { status: 200, body: path === '/v1/regions' ? [ctx.region] : `${ctx.host}:4647` };
  }
  const region = query.get('region') || ctx.region;
  const readable = () => {
    if (region !== ctx.region) throw new HttpError(500, 'No path to region');
    checkToken(ctx.token, r.req);
  };
  if (path === '/v1/jobs') {
    if (method === 'PUT' || method === 'POST') return registerJob(ctx, r.req, query, r.body);
    only('GET');
    readable();
    return listJobs(ctx, query, r.signal);
  }
  if (path.startsWith('/v1/job/')) {
    const rest = decodeURIComponent(path.slice('/v1/job/'.length));
    if (JOB_SUFFIXES.some((suffix) => rest.endsWith(`/${suffix}`)))
      return unknown('job route not modelled by the double');
    const part = ['allocations', 'evaluations', 'summary'].find((suffix) => rest.endsWith(`/${suffix}`));
    const id = part === undefined ? rest : rest.slice(0, -part.length - 1);
    if (part === undefined && (method === 'PUT' || method === 'POST'))
      return registerJob(ctx, r.req, query, r.body, id);
    if (part === undefined && method === 'DELETE') return deregisterJob(ctx, r.req, query, id);
    only('GET');
    readable();
    return readJob(ctx, query, r.signal, id, part ?? '');
  }
  if (path === '/v1/allocations') {
    only('GET');
    readable();
    return listAllocations(ctx, query, r.signal);
  }
  if (path.startsWith('/v1/allocation/')) {
    const tokens = path.slice('/v1/allocation/'.length).split('/');
    if (tokens.length > 2) throw new HttpError(404, 'resource not found');
    if (tokens.length === 2)
      return tokens[1] === '' ? unknown() : unknown('allocation route not modelled by the double');
    only('GET');
    readable();
    const id = tokens[0] ?? '';
    return blockingRead(ctx.state, query, r.signal, () => {
      const alloc = ctx.state.allocs.get(id);
      if (alloc === undefined) return { index: ctx.state.tables.allocs, error: 'alloc not found' };
      return { index: alloc.ModifyIndex, body: renderAlloc(alloc) };
    });
  }
  if (path === '/v1/evaluations') {
    only('GET');
    readable();
    return listEvaluations(ctx, query, r.signal);
  }
  if (path.startsWith('/v1/evaluation/')) {
    only('GET');
    readable();
    const [id = '', sub] = path.slice('/v1/evaluation/'.length).split('/');
    if (sub === 'allocations') {
      return blockingRead(ctx.state, query, r.signal, () => ({
        index: ctx.state.tables.allocs,
        body: [...ctx.state.allocs.values()].filter((a) => a.EvalID === id).map((a) => renderAllocStub(a)),
      }));
    }
    return blockingRead(ctx.state, query, r.signal, () => {
      const evaluation = ctx.state.evals.get(id);
      if (evaluation === undefined) return { index: ctx.state.tables.evals, error: 'eval not found' };
      return { index: evaluation.ModifyIndex, body: renderEval(evaluation) };
    });
  }
  if (path.startsWith('/v1/client/fs/logs/'))
    return logs(ctx, r, decodeURIComponent(path.slice('/v1/client/fs/logs/'.length)));
  if (path.startsWith('/v1/client/fs/')) return unknown('client filesystem route not modelled by the double');
  if (path === '/v1/namespaces' || path.startsWith('/v1/namespace/')) {
    only('GET');
    readable();
    return namespaces(ctx, r, path);
  }
  if (path === '/v1/agent/self') {
    only('GET');
    readable();
    return { status: 200, body: agentSelf(ctx) };
  }
  return unknown();
}

function listAllocations(ctx: Context, query: URLSearchParams, signal: AbortSignal): Promise<Reply> {
  const namespace = query.get('namespace') || 'default';
  const prefix = query.get('prefix') ?? '';
  const resources = boolParam(query, 'resources') ?? false;
  const taskStates = boolParam(query, 'task_states') ?? true;
  return blockingRead(ctx.state, query, signal, () => ({
    index: ctx.state.tables.allocs,
    body: [...ctx.state.allocs.values()]
      .filter((alloc) => (namespace === '*' || alloc.Namespace === namespace) && alloc.ID.startsWith(prefix))
      .sort((a, b) => (a.ID < b.ID ? -1 : 1))
      .map((alloc) => ({
        ...renderAllocStub(alloc, resources),
        ...(taskStates ? {} : { TaskStates: null }),
      })),
  }));
}

function listEvaluations(ctx: Context, query: URLSearchParams, signal: AbortSignal): Promise<Reply> {
  const namespace = query.get('namespace') || 'default';
  const prefix = query.get('prefix') ?? '';
  const job = query.get('job') ?? '';
  const status = query.get('status') ?? '';
  return blockingRead(ctx.state, query, signal, () => ({
    index: ctx.state.tables.evals,
    body: [...ctx.state.evals.values()]
      .filter((e) => (namespace === '*' || e.Namespace === namespace) && e.ID.startsWith(prefix))
      .filter((e) => (job === '' || e.JobID === job) && (status === '' || e.Status === status))
      .sort((a, b) => a.CreateIndex - b.CreateIndex)
      .map(renderEval),
  }));
}

function namespaces(ctx: Context, r: Request, path: string): Promise<Reply> {
  const render = (name: string) => {
    const ns = ctx.state.namespaces.get(name);
    return ns === undefined
      ? undefined
      : { ...ns, Capabilities: null, Meta: null, Quota: '', NodePoolConfiguration: null };
  };
  if (path === '/v1/namespaces') {
    const prefix = r.query.get('prefix') ?? '';
    return blockingRead(ctx.state, r.query, r.signal, () => ({
      index: ctx.state.tables.namespaces,
      body: [...ctx.state.namespaces.keys()]
        .filter((name) => name.startsWith(prefix))
        .sort()
        .map(render),
    }));
  }
  const name = decodeURIComponent(path.slice('/v1/namespace/'.length));
  return blockingRead(ctx.state, r.query, r.signal, () => {
    const body = render(name);
    return body === undefined
      ? { index: ctx.state.tables.namespaces, error: 'Namespace not found' }
      : { index: body.ModifyIndex, body };
  });
}

/** GET /v1/client/fs/logs/:alloc_id, with the agent's and the client's checks in Nomad's order. */
async function logs(ctx: Context, r: Request, allocID: string): Promise<Reply | undefined> {
  const q = r.query;
  if (allocID === '') throw new HttpError(400, 'must provide a valid alloc id');
  const task = q.get('task') ?? '';
  if (task === '') throw new HttpError(400, 'must provide task name');
  const flag = (name: string) => {
    const text = q.get(name) ?? '';
    const value = text === '' ? false : parseGoBool(text);
    if (value === undefined) {
      throw new HttpError(
        400,
        `failed to parse ${name} field to boolean: strconv.ParseBool: parsing "${text}": invalid syntax`,
      );
    }
    return value;
  };
  const follow = flag('follow');
  const plain = flag('plain');
  const type = q.get('type') ?? '';
  if (type !== 'stdout' && type !== 'stderr')
    throw new HttpError(400, 'must provide log type (stdout/stderr)');
  const offsetText = q.get('offset') ?? '';
  if (offsetText !== '' && !/^[-+]?\d+$/.test(offsetText)) {
    throw new HttpError(
      400,
      `error parsing offset: strconv.ParseInt: parsing "${offsetText}": invalid syntax`,
    );
  }
  const origin = q.get('origin') || 'start';
  if (origin !== 'start' && origin !== 'end') throw new HttpError(400, 'origin must be start or end');
  if ((q.get('region') || ctx.region) !== ctx.region) throw new HttpError(500, 'No path to region');
  checkToken(ctx.token, r.req);
  const alloc = ctx.state.allocs.get(allocID);
  const runner = ctx.client.runners.get(allocID);
  if (alloc === undefined || runner === undefined)
    throw new HttpError(404, `Unknown allocation ${JSON.stringify(allocID)}`);
  const state = alloc.TaskStates?.[task];
  if (state === undefined) throw new HttpError(400, `unknown task name ${JSON.stringify(task)}`);
  if (state.StartedAt === undefined)
    throw new HttpError(404, `task ${JSON.stringify(task)} not started yet. No logs available`);
  const offset = offsetText === '' ? 0 : Number(offsetText);
  await streamLog(r.res, { allocDir: runner.allocDir, task, type, follow, plain, offset, origin }, r.signal);
  return undefined;
}

function agentSelf(ctx: Context): Record<string, unknown> {
  const { node } = ctx;
  const version = { Revision: '', Version: ctx.version, VersionMetadata: '', VersionPrerelease: '' };
  return {
    config: {
      Region: ctx.region,
      Datacenter: node.Datacenter,
      NodeName: node.Name,
      Version: version,
      ACL: { Enabled: ctx.token !== undefined },
      Client: { Enabled: true, NodeClass: node.NodeClass, NodePool: node.NodePool, Meta: node.Meta },
      Server: { Enabled: true },
      DataDir: ctx.dataDir,
    },
    member: {
      Name: `${node.Name}.${ctx.region}`,
      Addr: ctx.host,
      Port: 4648,
      Status: 'alive',
      Tags: { region: ctx.region, dc: node.Datacenter, build: ctx.version },
    },
    stats: {
      nomad: { known_regions: '1', leader: 'true', server: 'true' },
      client: { node_id: node.ID, known_servers: `${ctx.host}:4647` },
    },
  };
}
