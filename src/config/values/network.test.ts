import { describe, expect, it } from 'vitest';
import { host, httpUrl, listenAddress } from './network.js';

const ctx = { cwd: '/', env: {}, secret: false };

describe('listenAddress', () => {
  it.each([
    [':8080', ':8080'],
    ['8080', ':8080'],
    ['127.0.0.1:8080', '127.0.0.1:8080'],
    ['localhost:3000', 'localhost:3000'],
    ['[::1]:8080', '[::1]:8080'],
    [':080', ':80'],
    ['127.0.0.1:0', '127.0.0.1:0'],
  ])('reads %s as %s', (raw, normalized) => {
    expect(listenAddress.parse(raw, ctx)).toEqual({ ok: true, value: normalized });
  });

  it.each([':70000', 'localhost', '[::1]', 'http://localhost:80', 'port 3000', '::1:80', 'a b:80'])(
    'refuses %j',
    (raw) => {
      expect(listenAddress.parse(raw, ctx)).toEqual({
        ok: false,
        message: `${JSON.stringify(raw)} is not a listen address; expected a port or host:port such as :8080, 8080, 127.0.0.1:8080 or [::1]:8080 (port 0: any free port)`,
      });
    },
  );
});

describe('host', () => {
  it('accepts a host with an optional port', () => {
    for (const raw of [
      'ci.example.com',
      'ci.example.com:8443',
      '10.0.0.1:80',
      '[fd00::1]:443',
      'localhost',
    ]) {
      expect(host(true).parse(raw, ctx)).toEqual({ ok: true, value: raw });
    }
  });

  it('refuses schemes with a hint that the protocol is separate', () => {
    expect(host(true).parse('https://ci.example.com', ctx)).toEqual({
      ok: false,
      message:
        '"https://ci.example.com" has a scheme; expected a host name with an optional port and no scheme, such as ci.example.com or ci.example.com:8443 (the protocol is a separate setting)',
    });
  });

  it('refuses paths, bad ports and, when asked, any port', () => {
    expect(host(true).parse('ci.example.com/path', ctx)).toMatchObject({ ok: false });
    expect(host(true).parse('ci.example.com:99999', ctx)).toMatchObject({ ok: false });
    expect(host(true).parse('ci.example.com:', ctx)).toMatchObject({ ok: false });
    expect(host(false).parse('share.example.com:22', ctx)).toMatchObject({ ok: false });
    expect(host(false).parse('share.example.com', ctx)).toEqual({ ok: true, value: 'share.example.com' });
  });
});

describe('httpUrl', () => {
  it('accepts http and https URLs as given', () => {
    expect(httpUrl().parse('https://git.example.com/', ctx)).toEqual({
      ok: true,
      value: 'https://git.example.com/',
    });
    expect(httpUrl().parse('http://10.0.0.2:3000', ctx)).toEqual({ ok: true, value: 'http://10.0.0.2:3000' });
  });

  it.each(['not a url', 'ftp://git.example.com', 'git.example.com', 'https://'])('refuses %j', (raw) => {
    expect(httpUrl().parse(raw, ctx)).toEqual({
      ok: false,
      message: `${JSON.stringify(raw)} is not an http(s) URL; expected an http:// or https:// URL such as https://git.example.com`,
    });
  });
});
