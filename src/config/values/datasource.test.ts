import { describe, expect, it } from 'vitest';
import { parseDatasource } from '../datasource.js';
import type { ParseContext } from './codec.js';
import { databaseSecret, datasource, defaultDatasource, formatDatasource } from './datasource.js';

function ctx(driver?: string): ParseContext {
  return { cwd: '/', env: driver === undefined ? {} : { SVC_DATABASE_DRIVER: driver }, secret: true };
}

describe('SVC_DATABASE_DATASOURCE', () => {
  it('is read according to SVC_DATABASE_DRIVER', () => {
    expect(datasource.parse('ci.sqlite', ctx())).toEqual({
      ok: true,
      value: { driver: 'embedded_sql', path: 'ci.sqlite' },
    });
    expect(datasource.parse('u:p@tcp(db:3306)/ci?parseTime=true', ctx('sql_a'))).toMatchObject({
      ok: true,
      value: { driver: 'sql_a', user: 'u', password: 'p', host: 'db', port: 3306, database: 'ci' },
    });
  });

  it('refuses a value of the wrong form without showing it', () => {
    const parsed = datasource.parse('postgres://ci:topsecret@db/ci', ctx('sql_a'));
    expect(parsed).toEqual({
      ok: false,
      message:
        'the value (not shown: it may hold a password) does not fit driver sql_a: expected the form <user>:<password>@tcp(<host>:<port>)/<database>?parseTime=true',
    });
  });

  it('is not checked when the driver itself is invalid: the driver reports the problem', () => {
    expect(datasource.parse('anything', ctx('oracle'))).toEqual({ ok: false });
    expect(defaultDatasource(ctx('oracle'))).toEqual({ ok: false });
  });

  it('defaults to the embedded file, and is required for network databases', () => {
    expect(defaultDatasource(ctx())).toEqual({
      ok: true,
      value: { driver: 'embedded_sql', path: 'data/svc.sqlite' },
    });
    expect(defaultDatasource(ctx('sql_b'))).toEqual({
      ok: false,
      message:
        'is required when SVC_DATABASE_DRIVER is sql_b; expected the form <scheme>://<user>:<password>@<host>:<port>/<database>?sslmode=disable',
    });
  });
});

describe('formatDatasource', () => {
  it.each([
    ['sql_a', 'ci:pw@tcp(db:3306)/ci?parseTime=true', 'ci:[redacted]@tcp(db:3306)/ci?parseTime=true'],
    ['sql_a', 'ci:pw@tcp([::1]:3306)/ci', 'ci:[redacted]@tcp([::1]:3306)/ci'],
    [
      'sql_b',
      'postgres://ci:pw@db:5432/ci?sslmode=disable',
      'postgres://ci:[redacted]@db:5432/ci?sslmode=disable',
    ],
    ['sql_b', 'postgresql://ci@db/ci', 'postgresql://ci@db:5432/ci'],
  ] as const)('%s %s is shown as %s', (driver, text, shown) => {
    const parsed = parseDatasource(driver, text);
    if (typeof parsed === 'string') throw new Error(parsed);
    expect(formatDatasource(parsed, true)).toBe(shown);
  });

  it('writes a string that reads back to the same datasource', () => {
    for (const [driver, text] of [
      ['sql_a', 'c%40i:p%40ss@tcp(db:3307)/ci?parseTime=true&loc=UTC'],
      ['sql_b', 'postgres://ci:p%2Fw@db.example.com:6543/ci?sslmode=require'],
    ] as const) {
      const parsed = parseDatasource(driver, text);
      expect(parseDatasource(driver, formatDatasource(parsed as never, false))).toEqual(parsed);
    }
  });
});

describe('SVC_DATABASE_SECRET', () => {
  it('follows the key rule of src/core/secret-key.ts', () => {
    expect(databaseSecret.parse('a'.repeat(32), ctx())).toEqual({ ok: true, value: 'a'.repeat(32) });
    expect(databaseSecret.parse('ab'.repeat(32), ctx())).toEqual({ ok: true, value: 'ab'.repeat(32) });
    expect(databaseSecret.parse('short', ctx())).toEqual({
      ok: false,
      message:
        'the value is not a usable key: expected 32 ASCII characters (e.g. `openssl rand -hex 16`) or 64 hexadecimal characters (`openssl rand -hex 32`), got 5 characters',
    });
  });
});
