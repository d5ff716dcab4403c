import { z } from 'zod';
import type { LogLine } from '../../core/log.js';
import { dumpingTransport, type DumpSink } from './dump.js';
import { RpcError } from './errors.js';
import { BodyBuffers } from './body-buffers.js';
import { httpTransport, type HttpTransport } from './transport.js';
import {
  wireDetails,
  wireStage,
  wireStep,
  wireWatch,
  type WireDetails,
  type WireFilter,
  type WireStage,
  type WireStep,
  type WireWatch,
} from './wire/index.js';

/** How the client reaches the server. */
export interface RpcClientOptions {
  /** `<SVC_RPC_PROTO>://<SVC_RPC_HOST>`, e.g. https://ci.example.com. */
  endpoint: string;
  /** SVC_RPC_SECRET, sent in X-SVC-Token. */
  secret: string;
  /**
   * The runner's name (the `machine` it accepts stages as), sent in X-SVC-Runner with every request:
   * the server then refuses this runner the details and reports of stages another runner holds.
   */
  runner?: string;
  /** SVC_RPC_SKIP_VERIFY: talk HTTPS without verifying the server's certificate. */
  skipVerify?: boolean;
  /** SVC_RPC_DUMP_HTTP(_BODY): every exchange goes to `sink`, bodies when `bodies`. */
  dump?: { sink: DumpSink; bodies: boolean } | undefined;
  /** Milliseconds: plain requests, and long-polls (which the server ends after ~30 s). */
  timeouts?: { request?: number; longPoll?: number };
  /** Replaces the HTTP transport (tests). */
  transport?: HttpTransport;
}

/** A request body already encoded as JSON. */
class JsonText {
  constructor(readonly text: string | Buffer) {}
}

const batchAck = z.object({ batch: z.number(), duplicate: z.boolean() });

/**
 * The runner's side of the protocol (docs/runners.md): one method per route. Every failure is an
 * RpcError that says whether a retry may help; retrying is the caller's business (src/runner/remote
 * retries until the server acknowledges). Answers are checked against the protocol's schemas.
 */
export class RpcClient {
  readonly #endpoint: string;
  readonly #secret: string;
  readonly #runner: string | undefined;
  readonly #transport: HttpTransport;
  readonly #timeout: number;
  readonly #longPoll: number;
  readonly #bodies = new BodyBuffers();

  constructor(options: RpcClientOptions) {
    this.#endpoint = options.endpoint.replace(/\/+$/, '');
    this.#secret = options.secret;
    this.#runner = options.runner;
    const base = options.transport ?? httpTransport({ verify: options.skipVerify !== true });
    this.#transport = options.dump ? dumpingTransport(base, options.dump.sink, options.dump.bodies) : base;
    this.#timeout = options.timeouts?.request ?? 60_000;
    this.#longPoll = options.timeouts?.longPoll ?? 60_000;
  }

  /** Checks that the server answers and takes the secret. */
  async ping(signal?: AbortSignal): Promise<void> {
    await this.#send('POST', '/rpc/v2/ping', undefined, signal);
  }

  /** Long-polls for a stage that suits `filter`; undefined when none came this time. */
  async request(filter: WireFilter, signal?: AbortSignal): Promise<WireStage | undefined> {
    const response = await this.#send('POST', '/rpc/v2/stage', filter, signal, this.#longPoll);
    return response.status === 204 ? undefined : parse(wireStage, response.body, 'stage');
  }

  /** Takes the stage for `machine`; RpcError 409 when another runner was first. */
  async accept(stageId: number, machine: string, signal?: AbortSignal): Promise<WireStage> {
    const path = `/rpc/v2/stage/${stageId}?machine=${encodeURIComponent(machine)}`;
    return parse(wireStage, (await this.#send('POST', path, undefined, signal)).body, 'stage');
  }

  /** What the stage needs to run: build, pipeline file, repository, secrets, netrc, system. */
  async details(stageId: number, signal?: AbortSignal): Promise<WireDetails> {
    return parse(
      wireDetails,
      (await this.#send('GET', `/rpc/v2/stage/${stageId}`, undefined, signal)).body,
      'details',
    );
  }

  /** Reports the stage (running with its steps, or done); answers the stored stage with step ids and versions. */
  async updateStage(stage: WireStage, signal?: AbortSignal): Promise<WireStage> {
    return parse(
      wireStage,
      (await this.#send('PUT', `/rpc/v2/stage/${stage.id}`, stage, signal)).body,
      'stage',
    );
  }

  /** Reports a step; answers the stored step (its new version). */
  async updateStep(step: WireStep, signal?: AbortSignal): Promise<WireStep> {
    return parse(wireStep, (await this.#send('PUT', `/rpc/v2/step/${step.id}`, step, signal)).body, 'step');
  }

  /** Long-polls for the end of the build; undefined when it still runs after this poll. */
  async watch(buildId: number, stageId: number, signal?: AbortSignal): Promise<WireWatch | undefined> {
    const path = `/rpc/v2/build/${buildId}/watch?stage=${stageId}`;
    const response = await this.#send('POST', path, undefined, signal, this.#longPoll);
    return response.status === 204 ? undefined : parse(wireWatch, response.body, 'watch');
  }

  /** Tells the server the stage's runner is alive; RpcError 409 when the stage is no longer its to run. */
  async heartbeat(stageId: number, signal?: AbortSignal): Promise<void> {
    await this.#send('POST', `/rpc/v2/stage/${stageId}/heartbeat`, undefined, signal);
  }

  /** Sends batch number `batch` of a step's lines; resolves once the server stored it (or had it). */
  async batch(
    stepId: number,
    batch: number,
    lines: readonly LogLine[],
    signal?: AbortSignal,
  ): Promise<{ batch: number; duplicate: boolean }> {
    const path = `/rpc/v2/step/${stepId}/logs/batch`;
    const response = await this.#sendLines(path, `{"batch":${batch},"lines":`, lines, '}', signal);
    return parse(batchAck, response.body, 'batch acknowledgement');
  }

  /** Uploads the whole log of a finished step. */
  async upload(stepId: number, lines: readonly LogLine[], signal?: AbortSignal): Promise<void> {
    await this.#sendLines(`/rpc/v2/step/${stepId}/logs/upload`, '', lines, '', signal);
  }

  /**
   * Uploads the log of a finished step as its batches 0 … `batches` − 1 (acknowledged before)
   * followed by `lines`. An svc server lacking any of those batches refuses it (409): upload the
   * whole log then.
   */
  async uploadAfter(
    stepId: number,
    batches: number,
    lines: readonly LogLine[],
    signal?: AbortSignal,
  ): Promise<void> {
    await this.#sendLines(
      `/rpc/v2/step/${stepId}/logs/upload`,
      `{"batches":${batches},"lines":`,
      lines,
      '}',
      signal,
    );
  }

  /** POSTs `head`, the lines' JSON array and `tail`, written into a buffer used again (BodyBuffers). */
  async #sendLines(
    path: string,
    head: string,
    lines: readonly LogLine[],
    tail: string,
    signal: AbortSignal | undefined,
  ): Promise<{ status: number; body: string }> {
    const body = this.#bodies.lines(head, lines, tail);
    try {
      return await this.#send('POST', path, new JsonText(body), signal);
    } finally {
      this.#bodies.release(body);
    }
  }

  async #send(
    method: string,
    path: string,
    body: unknown,
    signal: AbortSignal | undefined,
    timeout = this.#timeout,
  ): Promise<{ status: number; body: string }> {
    const headers: Record<string, string> = { 'X-SVC-Token': this.#secret, Accept: 'application/json' };
    if (this.#runner !== undefined) headers['X-SVC-Runner'] = this.#runner;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    let response;
    try {
      response = await this.#transport({
        method,
        url: `${this.#endpoint}${path}`,
        headers,
        body: body === undefined ? undefined : body instanceof JsonText ? body.text : JSON.stringify(body),
        timeout,
        signal,
      });
    } catch (error) {
      if (signal?.aborted) throw error;
      throw new RpcError(0, `${method} ${path}: no answer from ${this.#endpoint}: ${reason(error)}`, {
        cause: error,
      });
    }
    if (response.status >= 200 && response.status < 300) return response;
    throw new RpcError(response.status, `${method} ${path}: ${response.status} ${describe(response.body)}`);
  }
}

function parse<S extends z.ZodType>(schema: S, body: string, what: string): z.output<S> {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    throw new RpcError(502, `the server answered something that is not JSON where a ${what} was expected`);
  }
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new RpcError(
    502,
    `the server's ${what} is malformed at ${issue?.path.join('.') ?? '?'}: ${issue?.message ?? ''}`,
  );
}

function reason(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}

/** The server's error message (`{code, message}`), or the start of the body. */
function describe(body: string): string {
  try {
    const value = JSON.parse(body) as { message?: unknown };
    if (typeof value.message === 'string') return value.message;
  } catch {
    // Not JSON: show what came.
  }
  return body.slice(0, 200) || '(no body)';
}
