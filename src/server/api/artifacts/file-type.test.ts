import { describe, expect, it } from 'vitest';
import { fileType } from './file-type.js';

const none = new Uint8Array();
const type = (path: string, head = none) => fileType(path, head).contentType;

describe('fileType', () => {
  it('opens text by its extension or its name, as text/plain', () => {
    for (const path of ['a.txt', 'logs/build.LOG', 'junit/unit.xml', 'x.json', 'README', 'dist/SHA256SUMS'])
      expect(type(path), path).toBe('text/plain; charset=utf-8');
  });

  it('downloads a text-named file with a NUL in its first bytes', () => {
    expect(type('build.log', Buffer.from('ok\n\0'))).toBe('application/octet-stream');
    expect(fileType('build.log', Buffer.from('ok\n')).inline).toBe(true);
  });

  it('opens the four image kinds by extension, whatever their bytes', () => {
    expect(type('a/b.png')).toBe('image/png');
    expect(type('b.JPG')).toBe('image/jpeg');
    expect(type('b.jpeg')).toBe('image/jpeg');
    expect(type('b.gif')).toBe('image/gif');
    expect(type('b.webp', Buffer.from([0]))).toBe('image/webp');
  });

  it('downloads markup, scripts, documents, unknown kinds and dotfiles', () => {
    for (const path of [
      'i.html',
      'i.htm',
      'c.svg',
      'a.js',
      'a.mjs',
      'r.pdf',
      'app',
      'x.weird',
      '.env',
      'txt',
    ])
      expect(fileType(path, none), path).toEqual({ inline: false, contentType: 'application/octet-stream' });
  });
});
