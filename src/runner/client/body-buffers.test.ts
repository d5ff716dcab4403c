import { describe, expect, it } from 'vitest';
import { BodyBuffers } from './body-buffers.js';
import { linesJson } from './wire/lines.js';

describe('BodyBuffers', () => {
  const lines = [
    { pos: 0, out: 'plain', time: 0 },
    { pos: 1, out: 'quotes " and \\ and \u0001 and é 😀 \ud800 \u2028', time: 12 },
    { pos: 2, out: '', time: Number.NaN },
  ];

  it('writes a head, the lines as linesJson does, and a tail, as UTF-8', () => {
    const bodies = new BodyBuffers();
    const body = bodies.lines('{"batch":4,"lines":', lines, '}');
    expect(body.toString('utf8')).toBe(`{"batch":4,"lines":${linesJson(lines)}}`);
    expect(bodies.lines('', [], '').toString('utf8')).toBe('[]');
  });

  it('grows past its first size, for lines of any width', () => {
    const wide = Array.from({ length: 40 }, (_, pos) => ({ pos, out: '\u0001é'.repeat(20_000), time: pos }));
    const body = new BodyBuffers().lines('', wide, '');
    expect(body.length).toBeGreaterThan(2 * 1024 * 1024);
    expect(body.toString('utf8')).toBe(linesJson(wide));
  });

  it('gives a buffer to one body at a time, and uses it again once released', () => {
    const bodies = new BodyBuffers();
    const first = bodies.lines('', lines.slice(0, 1), '');
    const second = bodies.lines('', lines.slice(1), '');
    expect(first.buffer).not.toBe(second.buffer);
    expect(first.toString('utf8')).toBe(linesJson(lines.slice(0, 1)));
    bodies.release(first);
    const third = bodies.lines('', lines.slice(2), '');
    expect(third.buffer).toBe(first.buffer);
    expect(second.toString('utf8')).toBe(linesJson(lines.slice(1)));
  });
});
