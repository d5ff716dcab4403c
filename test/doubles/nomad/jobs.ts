/*
 * The job endpoints (command/agent/job_endpoint.go and nomad/job_endpoint.go): register (PUT/POST
 * /v1/jobs and /v1/job/:id), deregister (DELETE /v1/job/:id, with `purge`), and the blocking reads of
 * a job, its summary, allocations and evaluations, and the job list.
 */
import type { IncomingMessage } from 'node:http';
import { DecodeError, decodeGo, isObject, registerRequestType } from './decode.js';
import { blockingRead, boolParam, checkToken, HttpError, parseGoBool, type Reply } from './http.js';
import { canonicalJob } from './jobspec.js';
import { validateJob } from './validate.js';
import type { Job } from './model.js';
import { renderAllocStub, renderEval, renderJob, renderJobStub, renderSummary } from './render.js';
import type { Context } from './routes.js';
import { newEval } from './reconcile.js';
import { jobKey } from './state.js';
import { nowNs } from './util.js';

/** Go's json.Decoder errors, approximated from JSON.parse's. */
function jsonError(text: string, error: unknown): string {
  if (text.trim() === '') return 'EOF';
  const message = error instanceof Error ? error.message : '';
  if (/end of (JSON )?input|Unterminated/i.test(message)) return 'unexpected EOF';
  const position = /position (\d+)/.exec(message)?.[1];
  const char =
    position === undefined ? (/token '?(.)'?/.exec(message)?.[1] ?? '?') : (text[Number(position)] ?? '?');
  return `invalid character '${char}' looking for beginning of value`;
}

/** PUT/POST /v1/jobs and /v1/job/:id (then the body's job ID must be `pathID`). */
export function registerJob(
  ctx: Context,
  req: IncomingMessage,
  query: URLSearchParams,
  text: string,
  pathID?: string,
): Reply {
  if (text === '') throw new HttpError(400, 'Request body is empty');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new HttpError(400, jsonError(text, error));
  }
  let body: Record<string, unknown>;
  try {
    body = (decodeGo(parsed, registerRequestType) ?? {}) as Record<string, unknown>;
  } catch (error) {
    if (error instanceof DecodeError) throw new HttpError(400, error.message);
    throw error;
  }
  const input = body.Job;
  if (!isObject(input)) throw new HttpError(400, 'Job must be specified');
  if (typeof input.ID !== 'string') throw new HttpError(400, "Job ID hasn't been provided");
  if (pathID !== undefined && input.ID !== pathID) throw new HttpError(400, 'Job ID does not match name');
  // The request body's SecretID is a token too; the headers win.
  if (
    req.headers['x-nomad-token'] === undefined &&
    req.headers.authorization === undefined &&
    typeof body.SecretID === 'string'
  ) {
    req.headers['x-nomad-token'] = body.SecretID;
  }
  const region = jobRegion(ctx.region, query.get('region') ?? '', str(body.Region), str(input.Region));
  if (region !== ctx.region) throw new HttpError(500, 'No path to region');
  checkToken(ctx.token, req);
  const namespace = query.get('namespace') || str(body.Namespace) || str(input.Namespace) || 'default';
  const method = req.method ?? 'PUT';
  const path = pathID === undefined ? '/v1/jobs' : `/v1/job/${pathID}`;
  for (const field of ['Submission', 'PolicyOverride', 'PreserveCounts', 'PreserveResources']) {
    if (body[field] !== undefined && body[field] !== null && body[field] !== false)
      ctx.note(method, path, `field ${field} is not modelled`);
  }
  const job = canonicalJob(input, { namespace, region }, (field) =>
    ctx.note(method, path, `field ${field} is not modelled`),
  );
  const nodePoolExists = job.NodePool === 'default' || job.NodePool === 'all';
  const errors = validateJob(job, ctx.state.namespaces.has(namespace), nodePoolExists);
  if (errors !== '') throw new HttpError(500, errors);
  const existing = ctx.state.job(namespace, job.ID);
  if (body.EnforceIndex === true)
    enforceIndex(existing, typeof body.JobModifyIndex === 'number' ? body.JobModifyIndex : 0);
  const changed = existing === undefined || specOf(existing) !== specOf(job);
  let evalID = '';
  const index = ctx.state.commit(changed ? ['jobs', 'evals'] : ['evals'], (at) => {
    if (changed) {
      Object.assign(job, {
        CreateIndex: existing?.CreateIndex ?? at,
        ModifyIndex: at,
        JobModifyIndex: at,
        Version: existing === undefined ? 0 : existing.Version + 1,
        SubmitTime: nowNs(),
        Status: existing?.Status ?? 'pending',
      });
      ctx.state.jobs.set(jobKey(namespace, job.ID), job);
    }
    const current = changed ? job : (existing ?? job);
    const evaluation = newEval(current, at, { TriggeredBy: 'job-register' });
    ctx.state.evals.set(evaluation.ID, evaluation);
    evalID = evaluation.ID;
  });
  ctx.scheduler.enqueue(evalID);
  const JobModifyIndex = changed ? index : (existing?.ModifyIndex ?? index);
  const answer = {
    EvalID: evalID,
    EvalCreateIndex: index,
    JobModifyIndex,
    Warnings: '',
    ...writeMeta(index),
  };
  return { status: 200, body: answer, index, writeOnly: true };
}

const str = (value: unknown): string => (typeof value === 'string' ? value : '');

/** job_endpoint.go regionForJob: query, then body, then the job's; `global` means the agent's region. */
function jobRegion(agent: string, query: string, body: string, job: string): string {
  const region = query || body || job;
  return region === '' || region === 'global' ? agent : region;
}

function enforceIndex(existing: Job | undefined, index: number): void {
  const prefix = 'Enforcing job modify index';
  if (existing !== undefined && index === 0) throw new HttpError(500, `${prefix} 0: job already exists`);
  if (existing !== undefined && index !== existing.JobModifyIndex) {
    throw new HttpError(
      500,
      `${prefix} ${index}: job exists with conflicting job modify index: ${existing.JobModifyIndex}`,
    );
  }
  if (existing === undefined && index !== 0)
    throw new HttpError(500, `${prefix} ${index}: job does not exist`);
}

/** The job as submitted, without what the server sets, to tell whether a re-registration changed it. */
function specOf(job: Job): string {
  const rendered = renderJob(job);
  for (const field of [
    'Status',
    'StatusDescription',
    'Version',
    'SubmitTime',
    'CreateIndex',
    'ModifyIndex',
    'JobModifyIndex',
  ]) {
    delete rendered[field];
  }
  return JSON.stringify(rendered);
}

/** The QueryMeta fields embedded in write answers (KnownLeader and LastContact are not set on writes). */
const writeMeta = (index: number) => ({ Index: index, LastContact: 0, KnownLeader: false, NextToken: '' });

/** DELETE /v1/job/:id: stops the job (purge removes it at once); an unknown job succeeds with no eval. */
export function deregisterJob(ctx: Context, req: IncomingMessage, query: URLSearchParams, id: string): Reply {
  const purge = boolParam(query, 'purge') ?? false;
  boolParam(query, 'global');
  const region = query.get('region') || ctx.region;
  if (region !== ctx.region) throw new HttpError(500, 'No path to region');
  checkToken(ctx.token, req);
  const namespace = query.get('namespace') || 'default';
  const job = ctx.state.job(namespace, id);
  const empty = { EvalID: '', EvalCreateIndex: 0, JobModifyIndex: 0, VolumeEvalID: '', VolumeEvalIndex: 0 };
  if (job === undefined)
    return { status: 200, body: { ...empty, ...writeMeta(0) }, index: 0, writeOnly: true };
  let evalID = '';
  const index = ctx.state.commit(['jobs', 'evals'], (at) => {
    if (purge) ctx.state.jobs.delete(jobKey(namespace, id));
    else
      Object.assign(job, {
        Stop: true,
        Version: job.Version + 1,
        ModifyIndex: at,
        JobModifyIndex: at,
        SubmitTime: nowNs(),
      });
    // Nomad gives the deregistration evaluation the type `service`, whatever the job's type.
    const evaluation = newEval({ ...job, Type: 'service', JobModifyIndex: at }, at, {
      TriggeredBy: 'job-deregister',
    });
    ctx.state.evals.set(evaluation.ID, evaluation);
    evalID = evaluation.ID;
  });
  ctx.scheduler.enqueue(evalID);
  const answer = {
    ...empty,
    EvalID: evalID,
    EvalCreateIndex: index,
    JobModifyIndex: index,
    ...writeMeta(index),
  };
  return { status: 200, body: answer, index, writeOnly: true };
}

/** GET /v1/jobs?prefix=&namespace=&meta= */
export function listJobs(ctx: Context, query: URLSearchParams, signal: AbortSignal): Promise<Reply> {
  const withMeta = boolParam(query, 'meta') ?? false;
  const namespace = query.get('namespace') || 'default';
  const prefix = query.get('prefix') ?? '';
  return blockingRead(ctx.state, query, signal, () => ({
    index: Math.max(ctx.state.tables.jobs, ctx.state.tables.job_summary),
    body: ctx.state
      .jobsIn(namespace)
      .filter((job) => job.ID.startsWith(prefix))
      .map((job) => renderJobStub(job, ctx.state.summaries.get(jobKey(job.Namespace, job.ID)), withMeta)),
  }));
}

/** GET /v1/job/:id and its /summary, /allocations and /evaluations. */
export function readJob(
  ctx: Context,
  query: URLSearchParams,
  signal: AbortSignal,
  id: string,
  part: string,
): Promise<Reply> {
  const namespace = query.get('namespace') || 'default';
  const { state } = ctx;
  switch (part) {
    case 'summary':
      return blockingRead(state, query, signal, () => {
        const summary = state.summaries.get(jobKey(namespace, id));
        if (summary === undefined) return { index: state.tables.job_summary, error: 'job not found' };
        return { index: summary.ModifyIndex, body: renderSummary(summary) };
      });
    case 'allocations': {
      const all = parseGoBool(query.get('all') ?? '') ?? false; // Nomad ignores a bad value here
      return blockingRead(state, query, signal, () => ({
        index: state.tables.allocs,
        body: state.allocsOfJob(namespace, id, all).map((alloc) => renderAllocStub(alloc)),
      }));
    }
    case 'evaluations':
      return blockingRead(state, query, signal, () => ({
        index: state.tables.evals,
        body: state.evalsOfJob(namespace, id).map(renderEval),
      }));
    default:
      return blockingRead(state, query, signal, () => {
        const job = state.job(namespace, id);
        if (job === undefined) return { index: state.tables.jobs, error: 'job not found' };
        return { index: job.ModifyIndex, body: renderJob(job) };
      });
  }
}
