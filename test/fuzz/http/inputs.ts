/* Test support for the HTTP fuzzing targets: path segments, query strings and bodies, mostly broken. */
import fc from 'fast-check';
import { z } from 'zod';

/** Text that breaks ids, numbers, flags and names: signs, exponents, huge values, dots, escapes. */
export const WEIRD = [
  '',
  '0',
  '-1',
  '1.5',
  '1e3',
  '1e400',
  '2147483648',
  '4294967296',
  '9007199254740991',
  '9007199254740993',
  '99999999999999999999999999',
  ' 1',
  '0x10',
  'NaN',
  'Infinity',
  'null',
  'true',
  '[]',
  '{}',
  '.',
  '..',
  '%',
  '\u0000',
  '\u202e',
  'é',
  '🙂',
  'a'.repeat(300),
];

/** Percent-escapes that do not decode: the URL parser, not the route, must refuse them. */
const BROKEN_ESCAPES = ['%', '%zz', '%E0%A4%A', '%C0%AF', '%00', '%2F', '%2e%2e'];

/** Any text a client may put in a URL: full Unicode (valid UTF-16, so that it can be encoded). */
const text = fc.string({ unit: 'grapheme', maxLength: 24 });

/** A value as a client could send it in a URL, before encoding. */
export const urlValue = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...WEIRD) },
  { weight: 2, arbitrary: text },
  { weight: 2, arbitrary: fc.integer().map(String) },
  { weight: 1, arbitrary: fc.maxSafeInteger().map(String) },
  { weight: 1, arbitrary: fc.double().map(String) },
  { weight: 1, arbitrary: fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }).map(String) },
);

/**
 * A path parameter: mostly a name the fixture holds (index into its current list, resolved when
 * sent: the fixture's builds change), else anything, percent-encoded — or a raw broken escape.
 */
export type Segment = { known: number } | { raw: string } | { encoded: string };

export const segment: fc.Arbitrary<Segment> = fc.oneof(
  { weight: 6, arbitrary: fc.nat(3).map((known) => ({ known })) },
  { weight: 3, arbitrary: urlValue.map((value) => ({ encoded: value })) },
  { weight: 1, arbitrary: fc.constantFrom(...BROKEN_ESCAPES).map((raw) => ({ raw })) },
);

/**
 * A path's parameters: all names the fixture holds (the route's code runs on real records), one of
 * them broken (the refusal must name it), or all of them anything.
 */
export function pathParams(names: readonly string[]): fc.Arbitrary<Record<string, Segment>> {
  const known = fc.record(
    Object.fromEntries(names.map((name) => [name, fc.nat(3).map((n) => ({ known: n }))])),
  );
  if (names.length === 0) return known;
  const oneBroken = fc
    .tuple(known, fc.nat(names.length - 1), segment)
    .map(([params, at, value]) => ({ ...params, [names[at] ?? '']: value }));
  const any = fc.record(Object.fromEntries(names.map((name) => [name, segment])));
  return fc.oneof(
    { weight: 3, arbitrary: known },
    { weight: 3, arbitrary: oneBroken },
    { weight: 1, arbitrary: any },
  );
}

/** The segment as it goes into the path. */
export function segmentText(value: Segment, known: readonly string[] | undefined): string {
  if ('raw' in value) return value.raw;
  if ('encoded' in value) return encodeURIComponent(value.encoded);
  const list = known ?? [];
  return encodeURIComponent(list[value.known % Math.max(list.length, 1)] ?? 'unknown');
}

/** JSON Schema of one field, as far as the generators read it. */
interface FieldSchema {
  type?: string | string[];
  enum?: unknown[];
  items?: FieldSchema;
  properties?: Record<string, FieldSchema>;
  anyOf?: FieldSchema[];
  oneOf?: FieldSchema[];
  allOf?: FieldSchema[];
}

/** The fields of an object schema (of unions and intersections too) as JSON Schema: name → schema. */
export function fieldsOf(schema: z.ZodType | undefined): Record<string, FieldSchema> {
  if (schema === undefined) return {};
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as FieldSchema;
  const fields: Record<string, FieldSchema> = {};
  const visit = (node: FieldSchema): void => {
    Object.assign(fields, node.properties ?? {});
    for (const part of [...(node.anyOf ?? []), ...(node.oneOf ?? []), ...(node.allOf ?? [])]) visit(part);
  };
  visit(json);
  return fields;
}

const HUGE = [
  2 ** 31 - 1,
  2 ** 31,
  2 ** 32,
  2 ** 53 - 1,
  2 ** 53,
  2 ** 53 + 2,
  1e21,
  1e308,
  -1e308,
  -1,
  -(2 ** 31),
  0.5,
  -0.5,
];

/** A value of the field's type, often (so that inputs get past the schema), else a wrong one. */
export function fieldValue(field: FieldSchema, depth = 0): fc.Arbitrary<unknown> {
  const types = [field.type ?? []].flat();
  const typed: fc.Arbitrary<unknown>[] = [];
  if (field.enum !== undefined && field.enum.length > 0) typed.push(fc.constantFrom(...field.enum));
  // Nullable and union fields (`anyOf: [{type: string}, {type: null}]`): a value of any of their types.
  for (const part of [...(field.anyOf ?? []), ...(field.oneOf ?? [])]) typed.push(fieldValue(part, depth));
  for (const type of types) {
    if (type === 'null') typed.push(fc.constant(null));
    if (type === 'string') typed.push(fc.string(), fc.constantFrom(...WEIRD));
    if (type === 'integer' || type === 'number')
      typed.push(fc.integer({ min: -5, max: 100 }), fc.constantFrom(...HUGE), fc.integer());
    if (type === 'boolean') typed.push(fc.boolean());
    if (type === 'array' && depth < 2)
      typed.push(fc.array(fieldValue(field.items ?? {}, depth + 1), { maxLength: 3 }));
    if (type === 'object' && depth < 2) {
      typed.push(
        field.properties === undefined
          ? fc.dictionary(fc.string({ maxLength: 8 }), fc.oneof(fc.string(), fc.jsonValue({ maxDepth: 1 })), {
              maxKeys: 3,
            })
          : objectOf(field.properties, depth + 1),
      );
    }
  }
  const wrong = fc.oneof(
    fc.constantFrom(null, true, 0, -1, '', 'x', [], {}, 2 ** 64),
    fc.jsonValue({ maxDepth: 2 }),
  );
  return typed.length === 0
    ? wrong
    : fc.oneof({ weight: 4, arbitrary: fc.oneof(...typed) }, { weight: 1, arbitrary: wrong });
}

/** An object with any of the fields (each of its type, mostly), and now and then one unknown field. */
export function objectOf(
  fields: Record<string, FieldSchema>,
  depth = 0,
): fc.Arbitrary<Record<string, unknown>> {
  const shaped = fc.record(
    Object.fromEntries(Object.entries(fields).map(([name, field]) => [name, fieldValue(field, depth)])),
    { requiredKeys: [] },
  );
  return fc
    .tuple(
      shaped,
      fc.option(fc.tuple(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 1 })), { freq: 5 }),
    )
    .map(([object, extra]) => (extra === null ? object : { ...object, [extra[0]]: extra[1] }));
}

/** A body: the route's fields, any JSON, text that is not JSON, or nothing; with a content type. */
export interface Body {
  readonly text: string | undefined;
  readonly contentType: string | undefined;
}

const CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/json; charset=latin1',
  'application/octet-stream',
  'application/xml',
  ';;;',
];

export function body(fields: Record<string, FieldSchema>): fc.Arbitrary<Body> {
  const json = fc.oneof(
    { weight: 6, arbitrary: objectOf(fields).map((value) => JSON.stringify(value)) },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)) },
    { weight: 1, arbitrary: fc.string() },
    {
      weight: 1,
      arbitrary: fc.constantFrom('', ' ', '{', '{"a":', 'null', '[', '\u0000', '{"__proto__":{"x":1}}'),
    },
  );
  const contentType = fc.oneof(
    { weight: 6, arbitrary: fc.constant('application/json') },
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 2, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
  );
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant({ text: undefined, contentType: undefined }) },
    { weight: 8, arbitrary: fc.record({ text: json, contentType }) },
  );
}

/** A query string: the route's own keys (and paging) with any values, unknown keys, repeated keys, junk. */
export function queryString(keys: readonly string[]): fc.Arbitrary<string> {
  const key = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...keys, 'page', 'per_page') },
    { weight: 1, arbitrary: fc.string({ maxLength: 8 }) },
  );
  const pairs = fc.array(fc.tuple(key, urlValue), { maxLength: 5 });
  const junk = fc.oneof(
    { weight: 6, arbitrary: fc.constant('') },
    {
      weight: 1,
      arbitrary: fc.constantFrom('&', '&&=&', '=', '%zz', 'a[b]=1', 'a[]=1&a[]=2', '__proto__=1', '?'),
    },
  );
  return fc.tuple(pairs, junk).map(([list, extra]) => {
    const query = [new URLSearchParams(list).toString(), extra].filter((part) => part !== '').join('&');
    return query === '' ? '' : `?${query}`;
  });
}
