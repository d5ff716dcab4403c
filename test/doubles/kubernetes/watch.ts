/*
 * Lists and watches (research notes §3.2). A watch is a chunked 200 answer with one compact JSON event per
 * line. Without `resourceVersion` (or with "0") it starts with an ADDED event per existing object; with
 * `resourceVersion=N` it replays the stored events after N, or sends an ERROR event holding a 410 Expired
 * Status when the history no longer reaches back to N. Selectors apply to both sides of a change, so an
 * object that stops matching arrives as DELETED and one that starts matching as ADDED. `timeoutSeconds`
 * ends the stream, `allowWatchBookmarks` adds a BOOKMARK every `bookmarkIntervalMs` (the 2.0.1 JS client
 * drops a watch after 30 s without data).
 */
import type { ServerResponse } from 'node:http';
import type { Cluster, Resource, StoredEvent } from './cluster.js';
import { expired } from './errors.js';
import { selectionFrom, selects } from './selectors.js';
import { queryFlag, type ApiRequest, type Reply } from './server.js';
import type { KubeObject } from './types.js';

export const KINDS: Record<Resource, string> = { pods: 'Pod', secrets: 'Secret', namespaces: 'Namespace' };

export interface WatchContext {
  cluster: Cluster;
  bookmarkIntervalMs: number;
  /** Open streams, ended by close(). */
  streams: Set<ServerResponse>;
}

/** A list in the API's shape; items carry no kind/apiVersion, as a real server's typed lists. */
export function listOf(cluster: Cluster, resource: Resource, items: KubeObject[]) {
  return {
    kind: `${KINDS[resource]}List`,
    apiVersion: 'v1',
    metadata: { resourceVersion: cluster.resourceVersion },
    items: items.map(({ kind: _kind, apiVersion: _apiVersion, ...rest }) => rest),
  };
}

/** GET on a collection: a list, or a watch with `watch=true`. */
export function listOrWatch(
  ctx: WatchContext,
  request: ApiRequest,
  resource: Resource,
  namespace: string | undefined,
  name?: string,
): Reply {
  const selection = selectionFrom(resource, request.query);
  const inScope = (object: KubeObject) =>
    (namespace === undefined || object.metadata.namespace === namespace) &&
    (name === undefined || object.metadata.name === name) &&
    selects(resource, selection, object);
  if (!queryFlag(request.query, 'watch')) {
    const items = ctx.cluster.list(resource, namespace).filter(inScope);
    return { status: 200, body: listOf(ctx.cluster, resource, items) };
  }
  watch(ctx, request, resource, inScope);
  return 'streamed';
}

/** The legacy watch of one object (`GET …/pods/{name}?watch=true`), or undefined for a plain GET. */
export function watchOne(
  ctx: WatchContext,
  request: ApiRequest,
  resource: Resource,
  namespace: string | undefined,
  name: string,
): Reply | undefined {
  return queryFlag(request.query, 'watch') ? listOrWatch(ctx, request, resource, namespace, name) : undefined;
}

function watch(
  ctx: WatchContext,
  request: ApiRequest,
  resource: Resource,
  inScope: (o: KubeObject) => boolean,
) {
  const { res, query } = request;
  res.writeHead(200, {
    'Content-Type': 'application/json',
    'Cache-Control': 'no-cache, private',
    'Transfer-Encoding': 'chunked',
  });
  // Headers go out now: a client's watch() resolves on them, before any event exists.
  res.flushHeaders();
  const send = (type: string, object: unknown) => {
    if (!res.writableEnded) res.write(`${JSON.stringify({ type, object })}\n`);
  };
  const forward = (event: StoredEvent) => {
    if (event.resource !== resource) return;
    const now = inScope(event.object);
    const before = event.previous !== undefined && inScope(event.previous);
    if (event.type === 'MODIFIED') {
      if (now) send(before ? 'MODIFIED' : 'ADDED', event.object);
      else if (before) send('DELETED', event.object);
    } else if (now) {
      send(event.type, event.object);
    }
  };
  const from = query.get('resourceVersion') ?? '';
  if (from === '' || from === '0') {
    for (const object of ctx.cluster.list(resource).filter(inScope)) send('ADDED', object);
  } else {
    const replay = ctx.cluster.eventsAfter(Number(from));
    if (!Array.isArray(replay)) {
      send('ERROR', expired(`too old resource version: ${from} (${replay.oldest})`));
      res.end();
      return;
    }
    replay.forEach(forward);
  }
  const unsubscribe = ctx.cluster.subscribe(forward);
  const timers: NodeJS.Timeout[] = [];
  if (queryFlag(query, 'allowWatchBookmarks')) {
    const bookmark = () =>
      send('BOOKMARK', {
        kind: KINDS[resource],
        apiVersion: 'v1',
        metadata: { resourceVersion: ctx.cluster.resourceVersion },
      });
    timers.push(setInterval(bookmark, ctx.bookmarkIntervalMs));
  }
  const timeout = Number(query.get('timeoutSeconds') ?? '0');
  if (timeout > 0) timers.push(setTimeout(() => res.end(), timeout * 1000));
  ctx.streams.add(res);
  res.once('close', () => {
    unsubscribe();
    for (const timer of timers) clearTimeout(timer);
    ctx.streams.delete(res);
  });
}
