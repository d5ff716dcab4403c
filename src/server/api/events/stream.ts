import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { UserStore } from '../../../core/user.js';
import type { Principal } from '../../auth/authenticator.js';
import type { BuildEvent, BuildEventSource } from '../../events/build-events.js';
import { RepoParams } from '../params.js';
import type { RepoAccess } from '../repo-access.js';
import { REPO_READ, route, USER, type ApiRoute } from '../route.js';
import { SseStream, type SseOptions } from './sse.js';
import { StreamViewer, VIEWER_RECHECK_MS } from './viewer.js';

/** What the event streams need. */
export interface EventStreamDeps {
  readonly events: BuildEventSource;
  readonly access: Pick<RepoAccess, 'rights'>;
  /** The viewer's account, asked again while a stream lasts (viewer.ts). */
  readonly users: Pick<UserStore, 'find'>;
  /** Tests shorten the keepalive and the backlog limit. */
  readonly sse?: Omit<SseOptions, 'onEnd'>;
  /** How often a viewer is asked again (default a minute); tests shorten it. */
  readonly recheckMs?: number;
}
/** Events waiting for an access decision; more means the viewer cannot keep up. */
const MAX_QUEUED = 1_000;

const DESCRIPTION =
  'server-sent events: `data:` the repository with `build` and its `stages` at each status change; ' +
  '`: ping`/`: keepalive` comments; `event: error` `data: eof` when the server closes';

/**
 * GET /api/stream: the build events of every repository the caller may read, as server-sent events.
 * GET /api/stream/{owner}/{name}: those of one repository. An event is sent whenever a build or
 * one of its stages changes status; it is Drone's payload, the repository with the build and its
 * stages. Only the changes made by this server are seen (see docs/api.md).
 */
export function eventStreamRoutes(app: FastifyInstance, deps: EventStreamDeps): ApiRoute[] {
  const open = new Set<SseStream>();
  app.addHook('preClose', (done) => {
    // Viewers would otherwise hold the server open on shutdown until they leave.
    for (const stream of [...open]) stream.end();
    done();
  });
  const viewerOf = (principal: Principal | undefined) =>
    new StreamViewer({
      users: deps.users,
      access: deps.access,
      principal,
      ...(deps.recheckMs === undefined ? {} : { everyMs: deps.recheckMs }),
    });
  const start = (
    reply: Parameters<ApiRoute['handler']>[0]['reply'],
    viewer: StreamViewer,
    deliver: (event: BuildEvent, stream: SseStream) => void,
  ): void => {
    let unsubscribe = (): void => undefined;
    // Also without events, a viewer who may not follow any more is let go within the recheck time.
    const recheck = setInterval(() => {
      void viewer.present().then(
        (present) => present || stream.end(),
        () => undefined,
      );
    }, deps.recheckMs ?? VIEWER_RECHECK_MS);
    recheck.unref();
    const stream = new SseStream(reply, {
      ...deps.sse,
      onEnd: () => {
        clearInterval(recheck);
        unsubscribe();
        open.delete(stream);
      },
    });
    // Ended already (a HEAD request): nothing to follow, nothing to forget later.
    if (stream.ended) {
      clearInterval(recheck);
      return;
    }
    open.add(stream);
    unsubscribe = deps.events.subscribe((event) => deliver(event, stream));
  };
  /** Sends the events the viewer may read, in order, ending the stream when the viewer is gone. */
  const ordered = (viewer: StreamViewer, log: FastifyBaseLogger, accept: (event: BuildEvent) => boolean) => {
    // Access decisions are asynchronous; a chain keeps the events in the order they happened.
    let chain = Promise.resolve();
    let queued = 0;
    return (event: BuildEvent, stream: SseStream): void => {
      if (!accept(event)) return;
      if (queued >= MAX_QUEUED) {
        stream.end();
        return;
      }
      queued += 1;
      chain = chain
        .then(async () => {
          if (stream.ended) return;
          if (!(await viewer.present())) stream.end();
          else if (await viewer.mayRead(event.repo)) stream.send(event.data);
        })
        .catch((error: unknown) => {
          log.warn({ err: error, repo: event.repo.slug }, 'event stream: cannot decide access');
        })
        .finally(() => {
          queued -= 1;
        });
    };
  };
  return [
    route({
      method: 'GET',
      path: '/api/stream',
      access: USER,
      tag: 'events',
      summary: 'Build events of every repository the caller may read (server-sent events)',
      response: { contentType: 'text/event-stream', description: DESCRIPTION },
      handler({ principal, reply, request }) {
        const viewer = viewerOf(principal);
        start(
          reply,
          viewer,
          ordered(viewer, request.log, () => true),
        );
        return Promise.resolve();
      },
    }),
    route({
      method: 'GET',
      path: '/api/stream/:owner/:name',
      access: REPO_READ,
      tag: 'events',
      summary: 'Build events of one repository (server-sent events)',
      params: RepoParams,
      response: { contentType: 'text/event-stream', description: DESCRIPTION },
      handler({ repo, reply, principal, request }) {
        const viewer = viewerOf(principal);
        start(
          reply,
          viewer,
          ordered(viewer, request.log, (event) => event.repo.id === repo.id),
        );
        return Promise.resolve();
      },
    }),
  ];
}
