import fc from 'fast-check';
import type { ApiRoute } from '../../../src/server/api/index.js';
import { startApiFixture, type ApiFixture } from '../http/api-fixture.js';
import {
  body,
  fieldsOf,
  queryString,
  pathParams,
  segmentText,
  type Body,
  type Segment,
} from '../http/inputs.js';
import { judge, keysOf } from '../http/judge.js';
import { send, type Sent } from '../http/send.js';
import { serverTarget } from '../target.js';

/** Longest an API answer may take: far above what any takes, far below a hang. */
const LIMIT_MS = 5_000;

/** Who calls: the svc administrator mostly (so that inputs reach the handlers), else anyone. */
type Caller = 'admin' | 'session' | 'session-without-csrf' | 'user' | 'anonymous' | { token: string };

const caller: fc.Arbitrary<Caller> = fc.oneof(
  { weight: 12, arbitrary: fc.constant('admin' as const) },
  { weight: 1, arbitrary: fc.constantFrom('session', 'session-without-csrf', 'user', 'anonymous') },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme-ascii', maxLength: 40 }).map((token) => ({ token })) },
);

/** One generated request to one route of the table. */
interface ApiInput {
  /** `METHOD /path`: the route's key, so that a counterexample reads as the route it calls. */
  readonly route: string;
  readonly head: boolean;
  readonly params: Readonly<Record<string, Segment>>;
  readonly query: string;
  readonly body: Body;
  readonly caller: Caller;
}

function keyOf(route: ApiRoute): string {
  return `${route.method} ${route.path}`;
}

/** The names in a route's path (`/api/repos/:owner/:name` → owner, name). */
function paramNames(route: ApiRoute): string[] {
  return [...route.path.matchAll(/:([A-Za-z_]+)/g)].map((match) => match[1] ?? '');
}

/** Inputs for one route, from its path and schemas: a route added to the table is fuzzed with no change here. */
function inputs(route: ApiRoute): fc.Arbitrary<ApiInput> {
  const names = paramNames(route);
  return fc.record({
    route: fc.constant(keyOf(route)),
    head: route.method === 'GET' ? fc.nat(9).map((n) => n === 0) : fc.constant(false),
    params: pathParams(names),
    query: queryString(Object.keys(fieldsOf(route.query))),
    // Routes without a body get one too now and then: it must be ignored or refused, never crash.
    body:
      route.method === 'GET'
        ? fc.constant({ text: undefined, contentType: undefined })
        : route.body === undefined
          ? fc.oneof(
              { weight: 4, arbitrary: fc.constant({ text: undefined, contentType: undefined }) },
              body({}),
            )
          : body(fieldsOf(route.body)),
    caller,
  });
}

function headers(fixture: ApiFixture, who: Caller, contentType: string | undefined): Record<string, string> {
  const sent: Record<string, string> = contentType === undefined ? {} : { 'content-type': contentType };
  if (typeof who === 'object') return { ...sent, authorization: `Bearer ${who.token}` };
  switch (who) {
    case 'admin':
      return { ...sent, authorization: `Bearer ${fixture.adminToken}` };
    case 'user':
      return { ...sent, authorization: `Bearer ${fixture.userToken}` };
    case 'session':
      return { ...sent, cookie: fixture.session.cookie, 'x-csrf-token': fixture.session.csrf };
    case 'session-without-csrf':
      return { ...sent, cookie: fixture.session.cookie };
    case 'anonymous':
      return sent;
  }
}

/** The request an input stands for, with the fixture's current names filled in. */
function request(fixture: ApiFixture, route: ApiRoute, input: ApiInput): Sent {
  const path = route.path.replace(/:([A-Za-z_]+)/g, (_match, name: string) => {
    const value = input.params[name];
    return value === undefined ? '' : segmentText(value, fixture.known[name]);
  });
  return {
    method: input.head ? 'HEAD' : route.method,
    url: `${path}${input.query}`,
    headers: headers(fixture, input.caller, input.body.contentType),
    body: input.body.text,
  };
}

/**
 * What a refusal may name: path parameters (of any route: a path with `..` in it reaches another
 * route than the one it was made for, as URLs are resolved), the query's keys, the body's fields.
 */
function fieldNames(params: readonly string[], input: ApiInput, sent: Sent): string[] {
  const query = new URLSearchParams(input.query.slice(1));
  let parsed: unknown;
  try {
    parsed = sent.body === undefined ? undefined : JSON.parse(sent.body);
  } catch {
    parsed = undefined;
  }
  return [...params, ...query.keys(), ...keysOf(parsed)];
}

export const apiTarget = serverTarget<ApiFixture>({
  name: 'api',
  promise:
    'every API route, called by anyone with any path parameters, query and body (JSON or not, any content type), answers within 5 s, never 5xx, errors as {code, message} and 400s naming the field',
  start: startApiFixture,
  property: (fixture) => {
    const routes = fixture.harness.routes;
    if (routes.length === 0) throw new Error('the API registered no routes');
    const byKey = new Map(routes.map((route) => [keyOf(route), route]));
    const params = [...new Set(routes.flatMap(paramNames))];
    return fc.asyncProperty(fc.oneof(...routes.map(inputs)), async (input) => {
      const route = byKey.get(input.route);
      if (route === undefined) throw new Error(`no route ${input.route}`);
      const sent = request(fixture, route, input);
      try {
        const answer = await send(fixture.harness.app, sent, LIMIT_MS);
        judge(sent, answer, { fields: fieldNames(params, input, sent) });
      } finally {
        // Anything but a read may have deleted or demoted what later inputs need.
        if (sent.method !== 'GET' && sent.method !== 'HEAD') await fixture.restore();
      }
    });
  },
});
