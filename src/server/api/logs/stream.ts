import type { ServerResponse } from 'node:http';
import type { z } from 'zod';
import type { FastifyInstance } from 'fastify';
import type { BuildStore } from '../../../core/build.js';
import type { LiveLogs } from '../../../core/live-logs.js';
import type { LogLine, LogStore } from '../../../core/log.js';
import type { StageStore } from '../../../core/stage.js';
import { isDone } from '../../../core/status.js';
import type { Step, StepStore } from '../../../core/step.js';
import { findBuild, findStep } from '../lookup.js';
import { StepParams } from '../params.js';
import { REPO_READ, route, type ApiRoute, type RouteContext } from '../route.js';
import { maskDebugShell, masksDebugShell, type WriteAccess } from './debug-shell-mask.js';
import { SentPositions } from './sent-positions.js';
import { lineEvent, SharedEventEncoder } from './shared-events.js';

/** What following a step's log needs. */
export interface StreamLogDeps {
  readonly builds: Pick<BuildStore, 'findNumber'>;
  readonly stages: Pick<StageStore, 'findNumber'>;
  readonly steps: Pick<StepStore, 'findNumber' | 'find'>;
  readonly logs: Pick<LogStore, 'find'>;
  readonly liveLogs: Pick<LiveLogs, 'subscribe'>;
  /** The lines of running steps stored so far (the store's log batches), sent to late joiners first. */
  readonly logBatches?: { list(stepId: number): Promise<readonly LogLine[]> };
  /** Whether a caller may write to the repository: only writers see a debug session's lines. */
  readonly canWrite?: WriteAccess;
}

/** Proxies drop connections that stay silent; a comment line every so often keeps them open. */
const KEEPALIVE_MS = 25_000;
/** Events are joined into writes of about this size: a whole stored log is not one string. */
const WRITE_CHARS = 1 << 20;

/**
 * GET /api/repos/{owner}/{name}/builds/{number}/logs/{stage}/{step}/stream (and Drone's path
 * /api/stream/{owner}/{name}/{number}/{stage}/{step}): server-sent events, one `data:` event per log
 * line (`{"pos","out","time"}`) as the step prints it, then one `end` event. A viewer who joins a
 * running step first gets the lines stored so far, one who opens a finished step its stored log and
 * the `end` event. Each line is sent once (by `pos`), so overlaps between stored and live lines do
 * not repeat; lines that only reached the store are sent from the finished log when the step ends.
 */
export function streamLogRoutes(app: FastifyInstance, deps: StreamLogDeps): ApiRoute[] {
  const open = new Set<ServerResponse>();
  const encoder = new SharedEventEncoder(WRITE_CHARS);
  app.addHook('preClose', (done) => {
    // Viewers would otherwise hold the server open on shutdown until they leave.
    for (const response of open) response.end();
    done();
  });
  const handler = async ({
    request,
    reply,
    repo,
    params,
    principal,
  }: RouteContext<typeof REPO_READ, z.output<typeof StepParams>, unknown, unknown>): Promise<void> => {
    const build = await findBuild(deps.builds, repo.id, params.number);
    const step = await findStep(deps, build, params.stage, params.step);
    const masked = await masksDebugShell(build, repo, principal, deps.canWrite);
    reply.hijack();
    const response = reply.raw;
    response.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    // A HEAD request gets the head and nothing else: left open, the stream (whose events the
    // client never reads) would hold its connection until the client gives up.
    if (request.method === 'HEAD') {
      response.end();
      return;
    }
    open.add(response);
    const sent = new SentPositions();
    let ended = false;
    const write = (given: readonly LogLine[]): void => {
      if (ended || given.length === 0) return;
      const lines = masked ? maskDebugShell(given) : given;
      // Lines that follow what this viewer has (live lines, nearly always) go out as the events
      // encoded once for all the step's viewers (not to a viewer who gets them masked).
      const shared = masked ? undefined : encoder.events(lines);
      if (shared !== undefined && sent.addRun(shared.first, lines.length)) {
        // The chunks' buffers are used again once every viewer's write of them is over.
        for (const chunk of shared.chunks) response.write(chunk, shared.hold());
        return;
      }
      // One socket write per batch (up to WRITE_CHARS): a write per line made a flooding step's
      // viewer cost the server more than storing the lines did.
      let events = '';
      for (const line of lines) {
        if (!sent.add(line.pos)) continue;
        events += lineEvent(line);
        if (events.length >= WRITE_CHARS) {
          response.write(events);
          events = '';
        }
      }
      if (events !== '') response.write(events);
    };
    // Live lines wait while the stored ones are read, so that the viewer gets them in order.
    let held: LogLine[] | undefined = [];
    const send = (lines: readonly LogLine[]): void => {
      if (held === undefined) write(lines);
      else held.push(...lines);
    };
    const release = (stored: readonly LogLine[]): void => {
      const waiting = held ?? [];
      held = undefined;
      write(stored);
      write(waiting);
    };
    let unsubscribe = (): void => undefined;
    const keepalive = setInterval(() => response.write(': keepalive\n\n'), KEEPALIVE_MS);
    const stop = (): void => {
      ended = true;
      unsubscribe();
      clearInterval(keepalive);
      open.delete(response);
    };
    const finish = async (lastPos?: number): Promise<void> => {
      if (ended) return;
      // Read the stored log only for lines this viewer may lack: for a viewer who followed a
      // million-line step live, it would mean parsing all of them again for nothing.
      const complete = held === undefined && lastPos !== undefined && sent.hasAllUpTo(lastPos);
      const stored = complete ? [] : await deps.logs.find(step.id);
      if (ended) return;
      release(stored ?? []);
      response.end('event: end\ndata: eof\n\n');
      stop();
    };
    const fail = (error: unknown): void => {
      request.log.warn({ err: error, step: step.id }, 'log stream failed');
      if (!ended) response.end();
      stop();
    };
    // Subscribe before looking at the step's status, so that no line falls between the two.
    unsubscribe = deps.liveLogs.subscribe(step.id, send, (lastPos) => void finish(lastPos).catch(fail));
    request.raw.on('close', stop);
    try {
      if (await finishedNow(deps.steps, step)) await finish();
      else release((await deps.logBatches?.list(step.id)) ?? []);
    } catch (error) {
      fail(error);
    }
  };
  const common = {
    method: 'GET',
    access: REPO_READ,
    tag: 'logs',
    params: StepParams,
    response: {
      contentType: 'text/event-stream',
      description: 'server-sent events: `data: {"pos","out","time"}` per line, then `event: end`',
    },
    handler,
  } as const;
  return [
    route({
      ...common,
      path: '/api/repos/:owner/:name/builds/:number/logs/:stage/:step/stream',
      summary: 'Follows a step’s log live (server-sent events)',
    }),
    route({
      ...common,
      path: '/api/stream/:owner/:name/:number/:stage/:step',
      summary: 'Follows a step’s log live (Drone’s path)',
    }),
  ];
}

async function finishedNow(steps: Pick<StepStore, 'find'>, step: Step): Promise<boolean> {
  const current = (await steps.find(step.id)) ?? step;
  return isDone(current.status);
}
