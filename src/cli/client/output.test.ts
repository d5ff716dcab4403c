import { describe, expect, it } from 'vitest';
import { fields, table, when } from './output.js';

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
});
