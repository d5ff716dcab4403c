import { describe, expect, it } from 'vitest';
import { createMasker, MASK } from './masker.js';

describe('createMasker', () => {
  it('replaces every occurrence of a secret in a line', () => {
    const mask = createMasker(['hunter2']);
    expect(mask('password=hunter2, again hunter2.')).toBe(`password=${MASK}, again ${MASK}.`);
  });

  it('leaves lines without secrets, and all lines when there are no secrets, unchanged', () => {
    expect(createMasker(['hunter2'])('nothing to see')).toBe('nothing to see');
    expect(createMasker([])('hunter2')).toBe('hunter2');
    expect(createMasker([''])('a line')).toBe('a line');
  });

  it('treats regular-expression characters in a secret literally', () => {
    const mask = createMasker(['a.b*c+(d)?[e]$^|\\']);
    expect(mask('x a.b*c+(d)?[e]$^|\\ y')).toBe(`x ${MASK} y`);
    expect(mask('axbbbc')).toBe('axbbbc');
  });

  it('masks the longer of two overlapping secrets whole', () => {
    const mask = createMasker(['abc', 'abcdef']);
    expect(mask('abcdef abc')).toBe(`${MASK} ${MASK}`);
  });

  it('masks each line of a multi-line secret, so a secret printed across lines never shows', () => {
    const key = '-----BEGIN KEY-----\nMIIEpAIBAAKCAQEA\n7bq9Xz0r\n-----END KEY-----\n';
    const mask = createMasker([key]);
    const printed = `key: ${key}done`.split('\n').map(mask);
    expect(printed).toEqual([`key: ${MASK}`, MASK, MASK, MASK, 'done']);
    expect(printed.join('\n')).not.toContain('MIIEpAIBAAKCAQEA');
  });

  it('masks a multi-line secret split at any line boundary, with CRLF endings or indentation', () => {
    const mask = createMasker(['first-part\r\nsecond-part']);
    expect(['prefix first-part', '  second-part suffix'].map(mask)).toEqual([
      `prefix ${MASK}`,
      `  ${MASK} suffix`,
    ]);
  });

  it('does not mask one-character lines of a multi-line secret', () => {
    const mask = createMasker(['{\n  "token": "s3cr3t"\n}']);
    expect(mask('{')).toBe('{');
    expect(mask('  "token": "s3cr3t"')).toBe(`  ${MASK}`);
  });
});
