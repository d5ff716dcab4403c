import { describe, expect, it } from 'vitest';
import { LineSplitter } from './lines.js';

function split(chunks: (string | Buffer)[], maxLine?: number): string[] {
  const lines: string[] = [];
  const splitter = new LineSplitter((line) => lines.push(line), maxLine);
  for (const chunk of chunks) splitter.write(chunk);
  splitter.end();
  return lines;
}

describe('LineSplitter', () => {
  it('joins a line cut across chunks and passes on the last line without newline', () => {
    expect(split(['hel', 'lo\nwor', 'ld\n', 'last'])).toEqual(['hello', 'world', 'last']);
  });

  it('drops the CR of CRLF, also when the chunk ends between CR and LF, and keeps empty lines', () => {
    expect(split(['a\r', '\nb\r\n\r\n'])).toEqual(['a', 'b', '']);
  });

  it('decodes a UTF-8 character cut across chunks', () => {
    const bytes = Buffer.from('grüße ✓\n');
    expect(split([bytes.subarray(0, 3), bytes.subarray(3, 9), bytes.subarray(9)])).toEqual(['grüße ✓']);
  });

  it('keeps a secret cut across chunks whole, so masking still sees it', () => {
    expect(split(['token=s3c', 'r3t\n'])).toEqual(['token=s3cr3t']);
  });

  it('passes on every line of a chunk holding many, and carries what follows the last newline', () => {
    expect(split(['a\nb\n\nc', 'd\ne\nf', '\n'])).toEqual(['a', 'b', '', 'cd', 'e', 'f']);
    expect(split(['x\n'.repeat(1000)])).toEqual(Array.from({ length: 1000 }, () => 'x'));
  });

  it('cuts a run without newline at the maximum line length', () => {
    expect(split(['abcdefg'], 3)).toEqual(['abc', 'def', 'g']);
  });
});
