import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { linesJson, readBatch, readBatchText, readLines, readUpload } from './lines.js';
import { wireBatch, wireLine, wireUpload } from './schemas.js';

const lines = z.array(wireLine);

/** What the schema makes of `value`, or undefined when it refuses it. */
function bySchema<S extends z.ZodType>(schema: S, value: unknown): z.output<S> | undefined {
  const parsed = schema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

const CASES: unknown[] = [
  [],
  [{ pos: 0, out: 'a', time: 1 }],
  [{ pos: 3, out: '', time: 2.7 }],
  [{ pos: 1, out: 'x', time: -4 }],
  [{ pos: 1, out: 'x', time: null }],
  [{ pos: 1, out: 'x' }],
  [{ pos: 1, out: 'x', time: 0, extra: true }],
  [{ pos: -1, out: 'x', time: 0 }],
  [{ pos: 1.5, out: 'x', time: 0 }],
  [{ pos: 2 ** 53, out: 'x', time: 0 }],
  [{ pos: '1', out: 'x', time: 0 }],
  [{ pos: 1, out: 5, time: 0 }],
  [{ pos: 1, out: 'x', time: '0' }],
  [null],
  [[1, 'x', 0]],
  [{ pos: 0, out: 'a', time: 0 }, 7],
  { pos: 0, out: 'a', time: 0 },
  'lines',
  null,
];

describe('reading log lines without zod', () => {
  it('accepts and normalizes exactly what z.array(wireLine) does', () => {
    for (const value of CASES)
      expect(readLines(value), JSON.stringify(value)).toEqual(bySchema(lines, value));
  });

  it('reads batches and uploads as wireBatch and wireUpload do', () => {
    const bodies: unknown[] = [
      ...CASES,
      ...CASES.map((value) => ({ batch: 2, lines: value })),
      ...CASES.map((value) => ({ batches: 2, lines: value })),
      { batch: -1, lines: [] },
      { batch: 1.5, lines: [] },
      { batches: '1', lines: [] },
      { batch: 0 },
    ];
    for (const body of bodies) {
      expect(readBatch(body), `batch ${JSON.stringify(body)}`).toEqual(bySchema(wireBatch, body));
      expect(readUpload(body), `upload ${JSON.stringify(body)}`).toEqual(bySchema(wireUpload, body));
    }
  });

  it('writes lines as JSON.stringify of {pos, out, time} does', () => {
    const lines = [
      { pos: 0, out: 'plain', time: 0 },
      { pos: 1, out: 'quotes " and \\ and \u0001 and é 😀 \ud800', time: 12 },
      { pos: 2, out: '', time: 3, extra: 'dropped' },
    ];
    const expected = JSON.stringify(lines.map(({ pos, out, time }) => ({ pos, out, time })));
    expect(linesJson(lines)).toBe(expected);
    expect(linesJson([])).toBe('[]');
  });

  it('reads the text of a batch as svc runners write it, keeping the lines’ JSON as it came', () => {
    const lines = [
      { pos: 7, out: 'quotes " and \\ and \u0001 and é 😀', time: 12 },
      { pos: 8, out: '', time: 0 },
    ];
    const json = linesJson(lines);
    expect(readBatchText(`{"batch":3,"lines":${json}}`)).toEqual({ batch: 3, lines, json });
    expect(readBatchText('{"batch":0,"lines":[]}')).toEqual({ batch: 0, lines: [], json: '[]' });
  });

  it('leaves any other text to be parsed: other forms, lines that would not read back the same, tricks', () => {
    const other = [
      '[{"pos":0,"out":"a","time":0}]',
      '{"lines":[],"batch":1}',
      '{"batch": 1,"lines":[]}',
      '{"batch":01,"lines":[]}',
      '{"batch":-1,"lines":[]}',
      `{"batch":${2 ** 31},"lines":[]}`,
      '{"batch":1,"lines": []}',
      '{"batch":1,"lines":[] }',
      '{"batch":1,"lines":[]',
      '{"batch":1,"lines":[],"lines":[]}',
      '{"batch":1,"lines":[{"pos":0,"out":"a","time":0}],"lines":[{"pos":1,"out":"b","time":0}]}',
      '{"batch":1,"lines":[{"pos":0,"out":"a","time":1.5}]}',
      '{"batch":1,"lines":[{"pos":0,"out":"a"}]}',
      '{"batch":1,"lines":[{"pos":0,"out":"a","time":0,"extra":1}]}',
      '{"batch":1,"lines":[{"pos":-1,"out":"a","time":0}]}',
      '{"batch":1,"lines":{"pos":0}}',
      '{"batch":1,"lines":[}',
    ];
    for (const text of other) expect(readBatchText(text), text).toBeUndefined();
  });
});
