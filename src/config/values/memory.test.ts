import { describe, expect, it } from 'vitest';
import { formatMemorySize, memorySize, parseMemorySize } from './memory.js';

const ctx = { cwd: '/', env: {}, secret: false };

describe('memory sizes', () => {
  it.each([
    ['512MiB', 512 * 2 ** 20],
    ['512Mi', 512 * 2 ** 20],
    ['1Gi', 2 ** 30],
    ['2GiB', 2 * 2 ** 30],
    ['64Ki', 64 * 1024],
    ['64KiB', 64 * 1024],
    ['1Ti', 2 ** 40],
    ['1048576', 2 ** 20],
  ])('reads %s as %i bytes', (text, bytes) => {
    expect(parseMemorySize(text)).toBe(bytes);
  });

  it.each(['512MB', '512mi', '1.5Gi', 'lots', '', 'Mi', '-1Mi'])('refuses %j', (text) => {
    expect(parseMemorySize(text)).toBeUndefined();
  });

  it.each([
    [512 * 2 ** 20, '512MiB'],
    [1536 * 2 ** 20, '1536MiB'],
    [2 ** 30, '1GiB'],
    [1024, '1KiB'],
    [1000, '1000'],
  ])('prints %i bytes as %s', (bytes, text) => {
    expect(formatMemorySize(bytes)).toBe(text);
  });

  it('refuses zero and says what it expects', () => {
    expect(memorySize.parse('0', ctx)).toMatchObject({ ok: false });
    expect(memorySize.parse('512MB', ctx)).toEqual({
      ok: false,
      message:
        '"512MB" is not a memory size; expected a whole number of bytes or a number with a binary unit, such as 512MiB, 2Gi or 1048576',
    });
  });
});
