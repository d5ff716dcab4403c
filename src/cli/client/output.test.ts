import { describe, expect, it } from 'vitest';
import { bytes, fields, table, when } from './output.js';

describe('client output', () => {
  it('aligns columns on the widest cell, without trailing spaces', () => {
    expect(
      table(
        ['NAME', 'STATUS'],
        [
          ['lint', 'success'],
          ['unit-tests', ''],
        ],
      ),
    ).toBe('NAME        STATUS\nlint        success\nunit-tests\n');
  });

  it('aligns fields, shows maps as JSON and times in UTC', () => {
    expect(
      fields([
        ['Name', 'x'],
        ['Labels', { a: '1' }],
        ['Empty', undefined],
      ]),
    ).toBe('Name:   x\nLabels: {"a":"1"}\nEmpty:\n');
    expect(when(0)).toBe('-');
    expect(when(1_700_000_000)).toBe('2023-11-14 22:13:20Z');
  });

  it('shows sizes in binary units', () => {
    expect(bytes(0)).toBe('0 B');
    expect(bytes(1023)).toBe('1023 B');
    expect(bytes(1536)).toBe('1.5 KiB');
    expect(bytes(48_213_504)).toBe('46.0 MiB');
    expect(bytes(10 * 1024 ** 3)).toBe('10.0 GiB');
    expect(bytes(3 * 1024 ** 5)).toBe('3072.0 TiB');
  });
});
