import type { IncomingMessage } from 'node:http';
import { http, https } from '../../platform/node-http.js';
import { z } from 'zod';
import {
  allocation,
  evaluation,
  jobStub,
  registerResponse,
  type NomadAllocation,
  type NomadEvaluation,
  type NomadJobStub,
} from './api.js';
import type { NomadConnection } from './connection.js';

/** Nomad answered with an error status; `body` is its plain-text message. */
export class NomadApiError extends Error {
  constructor(
    readonly status: number,
    readonly call: string,
    readonly body: string,
  ) {
    super(`Nomad answered ${status} to ${call}: ${body.trim() || '(no message)'}`);
    this.name = 'NomadApiError';
  }
}

/** Where the jobs go: the namespace and region of every call (SVC_JOB_* or NOMAD_*; empty: Nomad's default). */
export interface NomadPlacement {
  namespace: string;
  region: string;
}

/** What one blocking query answered: the value and the index to wait past next time. */
export interface Indexed<T> {
  value: T;
  index: number;
}

const allocations = z.array(allocation);
const evaluations = z.array(evaluation);
const jobStubs = z.array(jobStub);

/**
 * The calls of Nomad's HTTP API the nomad runner makes: register a job, wait on its allocations
 * (blocking queries: `index` and `wait`, answered with `X-Nomad-Index`), read its evaluations and a
 * task's logs, list jobs by ID prefix, stop and purge. Every call carries `X-Nomad-Token` and the
 * placement's namespace and region as query parameters.
 */
export class NomadClient {
  readonly #connection: NomadConnection;
  readonly #placement: NomadPlacement;

  constructor(connection: NomadConnection, placement: NomadPlacement) {
    this.#connection = connection;
    this.#placement = placement;
  }

  get address(): string {
    return this.#connection.address;
  }

  /** `PUT /v1/jobs`: registers (or updates) the job; the evaluation's id. */
  async register(job: Record<string, unknown>, signal?: AbortSignal): Promise<string> {
    const { body } = await this.#call('PUT', '/v1/jobs', {}, { Job: job }, signal);
    return registerResponse.parse(JSON.parse(body)).EvalID ?? '';
  }

  /** `GET /v1/job/:id/allocations`, waiting until Nomad's index passes `index` (or `wait` ms). */
  async allocations(
    jobId: string,
    wait: { index: number; ms: number },
    signal?: AbortSignal,
  ): Promise<Indexed<NomadAllocation[]>> {
    const query = { index: String(wait.index), wait: `${Math.ceil(wait.ms / 1000)}s` };
    const answer = await this.#call('GET', `/v1/job/${enc(jobId)}/allocations`, query, undefined, signal);
    return { value: allocations.parse(JSON.parse(answer.body)), index: answer.index };
  }

  /** `GET /v1/job/:id/evaluations`. */
  async evaluations(jobId: string, signal?: AbortSignal): Promise<NomadEvaluation[]> {
    const { body } = await this.#call('GET', `/v1/job/${enc(jobId)}/evaluations`, {}, undefined, signal);
    return evaluations.parse(JSON.parse(body));
  }

  /** `GET /v1/jobs?prefix=&meta=true`: the jobs whose ID starts with `prefix`, with their Meta. */
  async jobs(prefix: string, signal?: AbortSignal): Promise<NomadJobStub[]> {
    const { body } = await this.#call('GET', '/v1/jobs', { prefix, meta: 'true' }, undefined, signal);
    return jobStubs.parse(JSON.parse(body));
  }

  /** `DELETE /v1/job/:id`: stops the job's allocations; `purge` also forgets the job at once. */
  async stop(jobId: string, purge: boolean, signal?: AbortSignal): Promise<void> {
    await this.#call('DELETE', `/v1/job/${enc(jobId)}`, { purge: String(purge) }, undefined, signal);
  }

  /**
   * `GET /v1/client/fs/logs/:alloc` (plain, not followed): the last `bytes` of a task's stdout or
   * stderr; empty when the task never started.
   */
  async logTail(
    allocId: string,
    task: string,
    type: 'stdout' | 'stderr',
    bytes: number,
    signal?: AbortSignal,
  ): Promise<string> {
    const query = { task, type, plain: 'true', origin: 'end', offset: String(bytes) };
    try {
      return (await this.#call('GET', `/v1/client/fs/logs/${enc(allocId)}`, query, undefined, signal)).body;
    } catch (error) {
      if (error instanceof NomadApiError && error.status === 404) return '';
      throw error;
    }
  }

  async #call(
    method: string,
    path: string,
    query: Record<string, string>,
    body: unknown,
    signal?: AbortSignal,
  ): Promise<{ body: string; index: number }> {
    const { address, token, httpAuth, tls } = this.#connection;
    const params = new URLSearchParams(query);
    if (this.#placement.namespace !== '') params.set('namespace', this.#placement.namespace);
    if (this.#placement.region !== '') params.set('region', this.#placement.region);
    const url = new URL(`${address}${path}?${params.toString()}`);
    const call = `${method} ${path}`;
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers: Record<string, string> = {
      accept: 'application/json',
      ...(token === '' ? {} : { 'x-nomad-token': token }),
      ...(httpAuth === '' ? {} : { authorization: `Basic ${Buffer.from(httpAuth).toString('base64')}` }),
      ...(payload === undefined
        ? {}
        : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) }),
    };
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      const options = {
        method,
        headers,
        ...(signal === undefined ? {} : { signal }),
        ...(url.protocol === 'https:'
          ? {
              ...(tls.ca.length > 0 ? { ca: tls.ca } : {}),
              ...(tls.cert === undefined ? {} : { cert: tls.cert }),
              ...(tls.key === undefined ? {} : { key: tls.key }),
              ...(tls.serverName === undefined ? {} : { servername: tls.serverName }),
              rejectUnauthorized: !tls.skipVerify,
            }
          : {}),
      };
      const req = (url.protocol === 'https:' ? https.request : http.request)(url, options, resolve);
      req.on('error', (error) =>
        reject(new Error(`cannot reach Nomad at ${address} (${call}): ${error.message}`)),
      );
      req.end(payload);
    });
    const chunks: Buffer[] = [];
    for await (const chunk of response) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const status = response.statusCode ?? 0;
    if (status < 200 || status > 299) throw new NomadApiError(status, call, text);
    const index = Number(response.headers['x-nomad-index'] ?? 0);
    return { body: text, index: Number.isFinite(index) ? index : 0 };
  }
}

function enc(segment: string): string {
  return encodeURIComponent(segment);
}
