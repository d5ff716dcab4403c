import { describe, expect, it } from 'vitest';
import { Diagnostics } from '../diagnostics.js';
import type { TreeNode } from '../yaml/tree.js';
import { parseByteSize, readMilliCpu } from './units.js';

describe('parseByteSize', () => {
  it.each([
    ['1024', 1024],
    ['512b', 512],
    ['1k', 1024],
    ['1KB', 1024],
    ['1KiB', 1024],
    ['512m', 512 * 1024 ** 2],
    ['512MiB', 512 * 1024 ** 2],
    ['1g', 1024 ** 3],
    ['2GB', 2 * 1024 ** 3],
    ['1.5g', 1.5 * 1024 ** 3],
    ['1 GiB', 1024 ** 3],
    ['1t', 1024 ** 4],
  ])('%s is %d bytes (units are powers of 1024, as in Drone)', (text, bytes) => {
    expect(parseByteSize(text)).toBe(bytes);
  });

  it.each(['', 'lots', '1x', '-1g', '1 g b c'])('%j is not a size', (text) => {
    expect(parseByteSize(text)).toBeUndefined();
  });
});

describe('readMilliCpu', () => {
  const scalar = (value: string | number): TreeNode => ({
    kind: 'scalar',
    position: { line: 3, column: 9 },
    value,
    text: String(value),
  });

  it.each([
    [1000, 1000],
    [250, 250],
    ['500m', 500],
    ['1.5', 1500],
    ['2', 2000],
  ])('%j is %d millicpus', (value, milli) => {
    const diagnostics = new Diagnostics();
    expect(readMilliCpu(scalar(value), 'cpu', diagnostics)).toBe(milli);
    expect(diagnostics.list()).toEqual([]);
  });

  it('refuses a fractional number, which Drone would read as millicpus', () => {
    const diagnostics = new Diagnostics();
    expect(readMilliCpu(scalar(1.5), 'resources.limits.cpu', diagnostics)).toBeUndefined();
    expect(diagnostics.list()).toEqual([
      expect.objectContaining({ line: 3, column: 9, field: 'resources.limits.cpu', severity: 'error' }),
    ]);
    expect(diagnostics.list()[0]?.message).toContain('found the number 1.5');
  });
});
