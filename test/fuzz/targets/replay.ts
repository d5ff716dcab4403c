import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { Captured } from '../../api/hooks/hook-server.js';
import { digest, startHookFixture, type HookFixture } from '../http/hook-fixture.js';
import { mutate } from '../mutate.js';
import { serverTarget } from '../target.js';

const ID = 'x-github-delivery';
const SIGNATURE = 'x-hub-signature-256';
const EVENT = 'x-github-event';
/** Earlier genuine deliveries an input may send again. */
const KEPT = 8;

/** What an attempt does to the delivery's id header. */
type IdChange =
  | { kind: 'keep' | 'drop' | 'twice' | 'earlier' }
  | { kind: 'set'; value: string }
  | { kind: 'huge'; size: number };

/** One request an input sends: a genuine delivery (this input's, or an earlier one), altered. */
interface Attempt {
  /** -1: this input's fresh delivery; otherwise an earlier one (modulo how many there are). */
  readonly source: number;
  readonly id: IdChange;
  readonly signature: 'keep' | 'drop' | 'twice' | { value: string };
  readonly event: 'keep' | 'drop' | { value: string };
  readonly body: 'keep' | 'space' | { truncate: number } | { path: number[]; replacement: unknown };
}

/** A header value fetch can send: printable, no line breaks. */
const headerText = fc
  .string({ unit: 'grapheme-ascii', maxLength: 80 })
  .map((text) => text.replace(/[^\x20-\x7e]/g, ''));

const attempt: fc.Arbitrary<Attempt> = fc.record({
  source: fc.oneof({ weight: 3, arbitrary: fc.constant(-1) }, { weight: 2, arbitrary: fc.nat(KEPT) }),
  id: fc.oneof(
    { weight: 4, arbitrary: fc.constant({ kind: 'keep' as const }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(...(['drop', 'twice', 'earlier'] as const)).map((kind) => ({ kind })),
    },
    { weight: 1, arbitrary: headerText.map((value) => ({ kind: 'set' as const, value })) },
    { weight: 1, arbitrary: fc.constant(0).map(() => ({ kind: 'set' as const, value: randomUUID() })) },
    {
      weight: 1,
      arbitrary: fc.integer({ min: 1_000, max: 20_000 }).map((size) => ({ kind: 'huge' as const, size })),
    },
  ),
  signature: fc.oneof(
    { weight: 4, arbitrary: fc.constant('keep' as const) },
    { weight: 1, arbitrary: fc.constantFrom('drop' as const, 'twice' as const) },
    { weight: 1, arbitrary: headerText.map((value) => ({ value })) },
  ),
  event: fc.oneof(
    { weight: 6, arbitrary: fc.constant('keep' as const) },
    { weight: 1, arbitrary: fc.constant('drop' as const) },
    {
      weight: 1,
      arbitrary: fc
        .oneof(fc.constantFrom('ping', 'create', 'pull_request', 'delete', 'PUSH', ' push '), headerText)
        .map((value) => ({ value })),
    },
  ),
  body: fc.oneof(
    { weight: 5, arbitrary: fc.constant('keep' as const) },
    { weight: 1, arbitrary: fc.constant('space' as const) },
    { weight: 1, arbitrary: fc.nat().map((truncate) => ({ truncate })) },
    {
      weight: 2,
      arbitrary: fc.record({ path: fc.array(fc.nat(), { maxLength: 5 }), replacement: fc.jsonValue() }),
    },
  ),
});

/** The request an attempt makes of `source`, and what svc may do with it. */
function request(attempt: Attempt, source: Captured, earlier: readonly Captured[]) {
  const { host: _h, connection: _c, 'content-length': _l, ...kept } = source.headers;
  const headers: [string, string][] = Object.entries(kept).filter(
    ([name]) => ![ID, SIGNATURE, EVENT].includes(name),
  );
  const id = source.headers[ID] ?? '';
  let sentId: string | undefined;
  switch (attempt.id.kind) {
    case 'keep':
      sentId = id;
      break;
    case 'drop':
      break;
    case 'twice':
      headers.push([ID, id]);
      sentId = `${id}, ${id}`;
      break;
    case 'earlier':
      sentId = earlier[0]?.headers[ID] ?? id;
      break;
    case 'set':
      sentId = attempt.id.value;
      break;
    case 'huge':
      sentId = 'x'.repeat(attempt.id.size);
      break;
  }
  if (sentId !== undefined) headers.push([ID, attempt.id.kind === 'twice' ? id : sentId]);
  const signature = source.headers[SIGNATURE] ?? '';
  if (attempt.signature === 'keep' || attempt.signature === 'twice') headers.push([SIGNATURE, signature]);
  if (attempt.signature === 'twice') headers.push([SIGNATURE, signature]);
  if (typeof attempt.signature === 'object') headers.push([SIGNATURE, attempt.signature.value]);
  const event =
    attempt.event === 'keep' ? 'push' : attempt.event === 'drop' ? undefined : attempt.event.value;
  if (event !== undefined) headers.push([EVENT, event]);
  let body = source.body;
  if (attempt.body === 'space') body = Buffer.concat([body, Buffer.from(' ')]);
  else if (typeof attempt.body === 'object' && 'truncate' in attempt.body)
    body = body.subarray(0, attempt.body.truncate % body.length);
  else if (typeof attempt.body === 'object')
    body = Buffer.from(
      JSON.stringify(
        mutate(JSON.parse(source.body.toString('utf8')), attempt.body.path, attempt.body.replacement),
      ),
    );
  return {
    headers,
    body,
    /** The bytes GitHub signed, with their signature: the only requests that may make a build. */
    verified: attempt.signature === 'keep' && body.equals(source.body),
    asksForBuild: event?.trim() === 'push',
    id: (sentId ?? '').trim(),
  };
}

async function post(url: string, entries: [string, string][], body: Buffer) {
  const headers = new Headers();
  for (const [name, value] of entries) headers.append(name, value);
  const response = await fetch(url, { method: 'POST', headers, body });
  const text = await response.text();
  let result: unknown;
  try {
    result = (JSON.parse(text) as { result?: unknown }).result;
  } catch {
    result = undefined;
  }
  return { status: response.status, text, result };
}

/** Sends each attempt and checks what svc did against what it may do. */
async function check(fixture: HookFixture, earlier: Captured[], attempts: readonly Attempt[]): Promise<void> {
  const fresh = await fixture.fresh();
  for (const attempt of attempts) {
    const source =
      attempt.source < 0 || earlier.length === 0 ? fresh : earlier[attempt.source % earlier.length];
    const sent = request(attempt, source ?? fresh, earlier);
    const before = await fixture.builds();
    const answer = await post(fixture.hookUrl, sent.headers, sent.body);
    const made = (await fixture.builds()) - before;
    const say = (what: string) => new Error(`${what}: ${answer.status} ${answer.text.slice(0, 300)}`);
    if (answer.status >= 500) throw say('a 5xx answer');
    if (made !== (answer.result === 'created' ? 1 : 0)) throw say(`${made} builds made`);
    if (!sent.verified) {
      if (answer.status < 400) throw say('an unverified delivery was taken');
      continue;
    }
    // Headers too large for the HTTP server (16 KiB) are refused before svc reads them.
    if (answer.status === 431 && attempt.id.kind === 'huge') continue;
    if (!sent.asksForBuild) {
      if (made !== 0) throw say('a build from an event that asks for none');
      continue;
    }
    const body = digest(sent.body);
    const seen = fixture.taken.bodies.has(body) || (sent.id !== '' && fixture.taken.ids.has(sent.id));
    const expected = seen ? 'duplicate' : 'created';
    if (answer.status !== 200 || answer.result !== expected) throw say(`expected ${expected}`);
    if (expected === 'created') {
      fixture.taken.bodies.add(body);
      if (sent.id !== '') fixture.taken.ids.add(sent.id);
    }
  }
  earlier.unshift(fresh);
  earlier.splice(KEPT);
}

export const replayTarget = serverTarget({
  name: 'webhook-replay',
  promise:
    'deliveries sent again, altered or not (ids, signatures, events, bodies), never answer 5xx, never make a build from an unverified body, and make one build per delivery id and per body at most',
  start: startHookFixture,
  property: (fixture) => {
    const earlier: Captured[] = [];
    return fc.asyncProperty(fc.array(attempt, { minLength: 1, maxLength: 3 }), (attempts) =>
      check(fixture, earlier, attempts),
    );
  },
});
