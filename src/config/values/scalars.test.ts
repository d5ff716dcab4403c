import { describe, expect, it } from 'vitest';
import { boolean, integer, oneOf, text } from './scalars.js';

const ctx = { cwd: '/', env: {}, secret: false };

describe('boolean', () => {
  it('reads exactly true and false', () => {
    expect(boolean.parse('true', ctx)).toEqual({ ok: true, value: true });
    expect(boolean.parse('false', ctx)).toEqual({ ok: true, value: false });
  });

  it.each(['yes', '1', 'TRUE', 'True', ' true', 'maybe'])('refuses %j', (raw) => {
    expect(boolean.parse(raw, ctx)).toEqual({
      ok: false,
      message: `${JSON.stringify(raw)} is not a boolean; expected true or false`,
    });
  });

  it('does not repeat a secret value', () => {
    expect(boolean.parse('hunter2', { ...ctx, secret: true })).toEqual({
      ok: false,
      message: 'the value is not a boolean; expected true or false',
    });
  });
});

describe('integer', () => {
  it('reads decimal whole numbers', () => {
    expect(integer().parse('1024', ctx)).toEqual({ ok: true, value: 1024 });
    expect(integer({ min: -1 }).parse('-1', ctx)).toEqual({ ok: true, value: -1 });
  });

  it.each(['12abc', '1.5', '1e3', '0x10', ' 1', '99999999999999999999'])('refuses %j', (raw) => {
    expect(integer().parse(raw, ctx)).toEqual({
      ok: false,
      message: `${JSON.stringify(raw)} is not an integer; expected a whole number`,
    });
  });

  it('checks the range and says it', () => {
    const port = integer({ min: 1, max: 65535 });
    expect(port.parse('0', ctx)).toEqual({
      ok: false,
      message: '0 is out of range; expected a whole number from 1 to 65535',
    });
    expect(port.parse('65536', ctx)).toMatchObject({ ok: false });
    expect(port.parse('65535', ctx)).toEqual({ ok: true, value: 65535 });
    expect(integer({ min: 2, unit: 'shares' }).expected).toBe('a whole number of at least 2 (shares)');
  });
});

describe('oneOf and text', () => {
  it('accepts only the listed words', () => {
    const proto = oneOf(['http', 'https'], 'a protocol');
    expect(proto.parse('https', ctx)).toEqual({ ok: true, value: 'https' });
    expect(proto.parse('HTTP', ctx)).toEqual({
      ok: false,
      message: '"HTTP" is not a protocol; expected http or https',
    });
  });

  it('takes any text as it is', () => {
    expect(text().parse(' spaced value ', ctx)).toEqual({ ok: true, value: ' spaced value ' });
  });
});
