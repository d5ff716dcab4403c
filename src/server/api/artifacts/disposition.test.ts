import { describe, expect, it } from 'vitest';
import { disposition } from './disposition.js';

describe('disposition', () => {
  it('names a plain file as it is', () => {
    expect(disposition('attachment', 'app-3-bin.zip')).toBe(
      `attachment; filename="app-3-bin.zip"; filename*=UTF-8''app-3-bin.zip`,
    );
  });

  it('keeps quotes, backslashes, line breaks and non-ASCII out of the plain name', () => {
    const name = 'a "b"\\\r\nü\'(*).txt';
    const header = disposition('inline', name);
    const [, plain = '', encoded = ''] =
      /^inline; filename="([^"]*)"; filename\*=UTF-8''(\S+)$/.exec(header) ?? [];
    expect(plain).toBe('a _b_________.txt');
    expect(encoded).toMatch(/^[A-Za-z0-9%._~!-]+$/);
    expect(decodeURIComponent(encoded)).toBe(name);
  });
});
