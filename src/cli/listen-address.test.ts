import { describe, expect, it } from 'vitest';
import { parseListenAddress } from './listen-address.js';

describe('parseListenAddress', () => {
  it.each([
    [':8080', { host: '0.0.0.0', port: 8080 }],
    ['8080', { host: '0.0.0.0', port: 8080 }],
    ['127.0.0.1:9000', { host: '127.0.0.1', port: 9000 }],
    ['[::1]:8443', { host: '::1', port: 8443 }],
    ['localhost:0', { host: 'localhost', port: 0 }],
  ])('%s', (address, expected) => {
    expect(parseListenAddress(address)).toEqual(expected);
  });

  it.each(['', 'http://x:80', ':99999', 'host:port'])('rejects %j with the expected forms', (address) => {
    expect(() => parseListenAddress(address)).toThrow(/expected :8080/);
  });
});
