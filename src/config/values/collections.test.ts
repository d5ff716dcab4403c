import { describe, expect, it } from 'vitest';
import { list, splitList, stringMap } from './collections.js';
import { webhookEvent } from './entries.js';

const ctx = { cwd: '/', env: {}, secret: false };

describe('list', () => {
  it('trims entries and drops empty ones', () => {
    expect(splitList(' a, b ,,c, ')).toEqual(['a', 'b', 'c']);
    expect(list().parse(',', ctx)).toEqual({ ok: true, value: [] });
  });

  it('names one bad entry and the form it expected', () => {
    expect(list(webhookEvent).parse('user,build:deleted', ctx)).toEqual({
      ok: false,
      message: `entry "build:deleted" is not a webhook event; expected ${webhookEvent.expected}`,
    });
  });

  it('names every bad entry at once', () => {
    const parsed = list(webhookEvent).parse('users, repo:created, build', ctx);
    expect(parsed).toMatchObject({ ok: false });
    expect(!parsed.ok && parsed.message).toMatch(/^entries "users", "repo:created" are not webhook events; /);
  });
});

describe('stringMap', () => {
  it('splits each entry on its first colon, so values may hold colons', () => {
    expect(stringMap().parse('url:https://x.example.com:8443, tier : gpu ', ctx)).toEqual({
      ok: true,
      value: { url: 'https://x.example.com:8443', tier: 'gpu' },
    });
  });

  it('accepts an empty value', () => {
    expect(stringMap().parse('flag:', ctx)).toEqual({ ok: true, value: { flag: '' } });
  });

  it('reports entries without colon, with an empty key or a repeated key, all at once', () => {
    expect(stringMap().parse('region,:x,a:1,a:2', ctx)).toEqual({
      ok: false,
      message:
        'entry "region" has no colon, entry ":x" has an empty key, entry "a:2" repeats the key "a"; expected comma-separated key:value pairs such as region:eu,tier:gpu',
    });
  });

  it('names the entries of a secret map by position and never shows them', () => {
    const parsed = stringMap().parse('token:abc,hunter2', { ...ctx, secret: true });
    expect(parsed).toEqual({
      ok: false,
      message: 'entry 2 has no colon; expected comma-separated key:value pairs such as region:eu,tier:gpu',
    });
  });

  it('redacts values but keeps the keys', () => {
    expect(stringMap().redact?.({ token: 'abc', key: 'def' })).toEqual({
      token: '[redacted]',
      key: '[redacted]',
    });
  });
});
