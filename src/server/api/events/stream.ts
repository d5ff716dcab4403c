import type { FastifyInstance } from 'fastify';
import type { Repo } from '../../../core/repo.js';
import type { Principal } from '../../auth/authenticator.js';
import type { BuildEvent, BuildEventSource } from '../../events/build-events.js';
import { RepoParams } from '../params.js';
import type { RepoAccess } from '../repo-access.js';
import { REPO_READ, route, USER, type ApiRoute } from '../route.js';
import { SseStream, type SseOptions } from './sse.js';

/** What the event streams need. */
export interface EventStreamDeps {
  readonly events: BuildEventSource;
  readonly access: Pick<RepoAccess, 'rights'>;
  /** Tests shorten the keepalive and the backlog limit. */
  readonly sse?: Omit<SseOptions, 'onEnd'>;
}

/** A viewer's right to read a repository is asked again after this long. */
const RIGHTS_TTL_MS = 60_000;
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
  const start = (
    reply: Parameters<ApiRoute['handler']>[0]['reply'],
    deliver: (event: BuildEvent, stream: SseStream) => void,
  ): void => {
    let unsubscribe = (): void => undefined;
    const stream = new SseStream(reply, {
      ...deps.sse,
      onEnd: () => {
        unsubscribe();
        open.delete(stream);
      },
    });
    // Ended already (a HEAD request): nothing to follow, nothing to forget later.
    if (stream.ended) return;
    open.add(stream);
    unsubscribe = deps.events.subscribe((event) => deliver(event, stream));
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
        const readable = new ReadableRepos(deps.access, principal);
        // Access decisions are asynchronous; a chain keeps the events in the order they happened.
        let chain = Promise.resolve();
        let queued = 0;
        start(reply, (event, stream) => {
          if (queued >= MAX_QUEUED) {
            stream.end();
            return;
          }
          queued += 1;
          chain = chain
            .then(async () => {
              if (!stream.ended && (await readable.has(event.repo))) stream.send(event.data);
            })
            .catch((error: unknown) => {
              request.log.warn({ err: error, repo: event.repo.slug }, 'event stream: cannot decide access');
            })
            .finally(() => {
              queued -= 1;
            });
        });
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
      handler({ repo, reply }) {
        start(reply, (event, stream) => {
          if (event.repo.id === repo.id) stream.send(event.data);
        });
        return Promise.resolve();
      },
    }),
  ];
}

/**
 * Whether one viewer may read the repositories events come from: public ones always, others by the
 * viewer's rights, remembered for a minute so that a busy server does not ask for every event.
 */
class ReadableRepos {
  readonly #access: Pick<RepoAccess, 'rights'>;
  readonly #principal: Principal;
  readonly #known = new Map<number, { readable: boolean; until: number }>();

  constructor(access: Pick<RepoAccess, 'rights'>, principal: Principal) {
    this.#access = access;
    this.#principal = principal;
  }

  async has(repo: Repo): Promise<boolean> {
    if (!repo.private && repo.visibility === 'public') return true;
    const now = Date.now();
    const known = this.#known.get(repo.id);
    if (known !== undefined && known.until > now) return known.readable;
    const { read } = await this.#access.rights(repo, this.#principal);
    if (this.#known.size >= 1_000) this.#known.clear();
    this.#known.set(repo.id, { readable: read, until: now + RIGHTS_TTL_MS });
    return read;
  }
}
