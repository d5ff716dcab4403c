import fc from 'fast-check';
import { STATUSES } from '../../../src/core/status.js';
import { wireFilter, wireLine, wireStage, wireStep } from '../../../src/runner/client/wire/index.js';
import { startRpcFixture, OTHER_RUNNER, RPC_SECRET, type RpcFixture } from '../http/rpc-fixture.js';
import {
  body,
  fieldsOf,
  objectOf,
  queryString,
  segment,
  urlValue,
  type Body,
  type Segment,
} from '../http/inputs.js';
import { judge, keysOf } from '../http/judge.js';
import { send, type Sent } from '../http/send.js';
import { mutate } from '../mutate.js';
import { serverTarget } from '../target.js';

/** Longest a protocol answer may take: the long-polls wait 20 ms here, everything else milliseconds. */
const LIMIT_MS = 5_000;

/** The secret in svc's header (mostly), in Drone's, or a wrong or missing one (then: a bare 401). */
type Token = 'svc' | 'drone' | { wrong: string | null };

const token: fc.Arbitrary<Token> = fc.oneof(
  { weight: 12, arbitrary: fc.constant('svc' as const) },
  { weight: 1, arbitrary: fc.constant('drone' as const) },
  {
    weight: 1,
    arbitrary: fc.option(fc.string({ unit: 'grapheme-ascii', maxLength: 40 })).map((wrong) => ({ wrong })),
  },
);

/**
 * The name in X-SVC-Runner: none (Drone's runners), the runner holding the running stage, another
 * runner (its requests on that stage must get 409), or anything.
 */
const runner = fc.oneof(
  { weight: 2, arbitrary: fc.constant(null) },
  { weight: 2, arbitrary: fc.constantFrom(OTHER_RUNNER, 'fuzz-runner') },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme-ascii', maxLength: 20 }) },
);

/** A body that breaks one field (any depth) of the stage or step the path names, as the protocol sends it. */
interface Broken {
  readonly path: readonly number[];
  readonly replacement: unknown;
}

/** What a field may become: other statuses and versions, wrong types, huge and negative numbers. */
const replacement = fc.oneof(
  fc.constantFrom(...STATUSES),
  fc.constantFrom(
    null,
    -1,
    0,
    1,
    2 ** 31 - 1,
    2 ** 31,
    -(2 ** 31) - 1,
    2 ** 53,
    2 ** 53 + 2,
    1e21,
    -1e21,
    0.5,
    '',
    '1',
    true,
    [],
    {},
  ),
  fc.integer(),
  fc.maxSafeInteger(),
  fc.string(),
  fc.jsonValue({ maxDepth: 2 }),
);

const broken: fc.Arbitrary<Broken> = fc.record({
  path: fc.array(fc.nat(), { minLength: 1, maxLength: 3 }),
  replacement,
});

/** The protocol's query parameters (the accepting runner's name, the watching runner's stage) and any others. */
interface RpcQuery {
  readonly machine: string | null;
  readonly stage: Segment | null;
  readonly rest: string;
}

const query: fc.Arbitrary<RpcQuery> = fc.record({
  machine: fc.option(fc.oneof(fc.constantFrom(OTHER_RUNNER, 'fuzz-runner'), urlValue)),
  stage: fc.option(segment),
  rest: queryString([]),
});

function queryText(fixture: RpcFixture, value: RpcQuery): string {
  const pairs: string[] = [];
  if (value.machine !== null) pairs.push(`machine=${encodeURIComponent(value.machine)}`);
  if (value.stage !== null)
    pairs.push(`stage=${segmentText(value.stage, (fixture.known.stage ?? []).map(String))}`);
  if (value.rest !== '') pairs.push(value.rest.slice(1));
  return pairs.length === 0 ? '' : `?${pairs.join('&')}`;
}

/** One generated protocol request. */
interface RpcInput {
  /** `METHOD /rpc/v2/…`: the route's key. */
  readonly route: string;
  readonly id: Segment;
  readonly query: RpcQuery;
  readonly body: Body | { broken: Broken };
  readonly token: Token;
  readonly runner: string | null;
}

/** Log lines: mostly well-formed (positions in any order, repeated, huge), else with any fields. */
const lines = (depth: number): fc.Arbitrary<unknown[]> =>
  fc.array(
    fc.oneof(
      {
        weight: 3,
        arbitrary: fc.record({ pos: fc.oneof(fc.nat(20), fc.nat()), out: fc.string(), time: fc.nat() }),
      },
      { weight: 1, arbitrary: objectOf(fieldsOf(wireLine), depth) },
    ),
    { maxLength: 4 },
  );

/** Bodies each route reads, by its schema; routes not listed here get any body (and must ignore or refuse it). */
const BODIES: Readonly<Record<string, fc.Arbitrary<Body | { broken: Broken }>>> = {
  'POST /rpc/v2/stage': body(fieldsOf(wireFilter)),
  'PUT /rpc/v2/stage/:id': fc.oneof(
    { weight: 3, arbitrary: broken.map((b) => ({ broken: b })) },
    body(fieldsOf(wireStage)),
  ),
  'PUT /rpc/v2/step/:id': fc.oneof(
    { weight: 3, arbitrary: broken.map((b) => ({ broken: b })) },
    body(fieldsOf(wireStep)),
  ),
  'POST /rpc/v2/step/:id/logs/batch': fc.oneof(
    json(
      fc.record(
        { batch: fc.oneof(fc.nat(5), urlValue, fc.integer()), lines: lines(1) },
        { requiredKeys: [] },
      ),
    ),
    json(lines(0)),
    body({}),
  ),
  'POST /rpc/v2/step/:id/logs/upload': fc.oneof(
    json(lines(0)),
    json(
      fc.record(
        { batches: fc.oneof(fc.nat(3), fc.integer(), urlValue), lines: lines(1) },
        { requiredKeys: [] },
      ),
    ),
    body({}),
  ),
};

function json(value: fc.Arbitrary<unknown>): fc.Arbitrary<Body> {
  return value.map((v) => ({ text: JSON.stringify(v), contentType: 'application/json' }));
}

function keyOf(route: { method: string; url: string }): string {
  return `${route.method} ${route.url}`;
}

/** Inputs for one route; a route added to the protocol is fuzzed (with any body) with no change here. */
function inputs(route: { method: string; url: string }): fc.Arbitrary<RpcInput> {
  const key = keyOf(route);
  return fc.record({
    route: fc.constant(key),
    id: segment,
    query,
    body:
      BODIES[key] ??
      fc.oneof({ weight: 3, arbitrary: fc.constant({ text: undefined, contentType: undefined }) }, body({})),
    token,
    runner,
  });
}

/** The kind of record a path's `:id` names: the segment before it (`/stage/:id`, `/step/:id/…`). */
function kindOf(url: string): string {
  return /\/([a-z]+)\/:id/.exec(url)?.[1] ?? '';
}

async function request(
  fixture: RpcFixture,
  route: { method: string; url: string },
  input: RpcInput,
): Promise<Sent> {
  const kind = kindOf(route.url);
  const known = (fixture.known[kind] ?? []).map(String);
  const idText = segmentText(input.id, known);
  let text: string | undefined;
  let contentType: string | undefined = 'application/json';
  if ('broken' in input.body) {
    // The stage or step as it is stored (or, for an unknown id, the first of the fixture's), broken in one place.
    const id = Number(safeDecode(idText));
    const base =
      (Number.isSafeInteger(id) && id > 0 ? await fixture.wire(kind, id) : undefined) ??
      (await fixture.wire(kind, Number(known[0])));
    text = JSON.stringify(mutate(base ?? {}, input.body.broken.path, input.body.broken.replacement));
  } else {
    text = input.body.text;
    contentType = input.body.contentType;
  }
  const headers: Record<string, string> = contentType === undefined ? {} : { 'content-type': contentType };
  if (input.runner !== null) headers['x-svc-runner'] = input.runner;
  if (input.token === 'svc') headers['x-svc-token'] = RPC_SECRET;
  else if (input.token === 'drone') headers['x-drone-token'] = RPC_SECRET;
  else if (input.token.wrong !== null) headers['x-svc-token'] = input.token.wrong;
  return {
    method: route.method,
    url: `${route.url.replace(':id', idText)}${queryText(fixture, input.query)}`,
    headers,
    body: text,
  };
}

function segmentText(value: Segment, known: readonly string[]): string {
  if ('raw' in value) return value.raw;
  if ('encoded' in value) return encodeURIComponent(value.encoded);
  return known[value.known % Math.max(known.length, 1)] ?? '1';
}

export const rpcTarget = serverTarget<RpcFixture>({
  name: 'rpc',
  promise: `every runner-protocol route, with the secret, any ids (known, unknown, negative, huge, not numbers), queries, runner names and payloads (valid stages and steps with one field broken, any JSON, not JSON) — on stages queued, running on another runner or waiting — answers within 5 s, never 5xx, errors as {code, message} and 400s naming the input; without the secret, a bare 401`,
  start: startRpcFixture,
  property: (fixture) => {
    if (fixture.routes.length === 0) throw new Error('the runner protocol registered no routes');
    const byKey = new Map(fixture.routes.map((route) => [keyOf(route), route]));
    return fc.asyncProperty(fc.oneof(...fixture.routes.map(inputs)), async (input) => {
      const route = byKey.get(input.route);
      if (route === undefined) throw new Error(`no route ${input.route}`);
      const sent = await request(fixture, route, input);
      try {
        const answer = await send(fixture.app, sent, LIMIT_MS);
        const authentic = input.token === 'svc' || input.token === 'drone';
        if (authentic && answer.status === 401)
          throw new Error(`${sent.method} ${sent.url} refused the secret`);
        // Without the secret: a bare 401, or — for a URL that is no route of the protocol (an id
        // that does not decode, an empty or too long one, `.`) — the router's 400, 404, 414 or (for a
        // body the root cannot parse) 415, before any protocol hook.
        if (!authentic && answer.status === 401) {
          if (answer.text !== '')
            throw new Error(`${sent.method} ${sent.url}: a 401 that says ${answer.text}`);
          return;
        }
        if (!authentic && ![400, 404, 414, 415].includes(answer.status)) {
          throw new Error(
            `${sent.method} ${sent.url} without the secret answered ${answer.status} ${answer.text.slice(0, 200)}`,
          );
        }
        judge(sent, answer, { fields: fields(sent) });
      } finally {
        await fixture.restore();
      }
    });
  },
});

/** What a refusal may name: the id (`"x" is not an id`), the query's keys and values, the body's fields. */
function fields(sent: Sent): string[] {
  const [path = '', query = ''] = sent.url.split('?');
  let parsed: unknown;
  try {
    parsed = sent.body === undefined ? undefined : JSON.parse(sent.body);
  } catch {
    parsed = undefined;
  }
  const segments = path.split('/').map((part) => safeDecode(part));
  const params = new URLSearchParams(query);
  return ['id', ...segments, ...params.keys(), ...keysOf(parsed)];
}

function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}
