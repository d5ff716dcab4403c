import { describe, expect, it } from 'vitest';
import { InvalidSettingsError } from '../../core/errors.js';
import { parseMysqlParams } from './mysql-params.js';

describe('sql_a datasource parameters', () => {
  it('accepts the Go driver’s own parameters with no effect', () => {
    expect(
      parseMysqlParams({ parseTime: 'true', charset: 'utf8mb4', loc: 'Local', collation: 'utf8mb4_bin' }),
    ).toEqual({
      connectTimeoutMs: 10_000,
      ssl: undefined,
      sessionVariables: [],
    });
  });

  it('reads timeout as a Go duration', () => {
    expect(parseMysqlParams({ timeout: '1m30s' }).connectTimeoutMs).toBe(90_000);
    expect(parseMysqlParams({ timeout: '250ms' }).connectTimeoutMs).toBe(250);
    expect(() => parseMysqlParams({ timeout: '10' })).toThrow(
      'timeout=10 is not a duration such as 10s or 1m30s',
    );
  });

  it('maps tls to TLS options and refuses a Go-registered TLS configuration', () => {
    expect(parseMysqlParams({ tls: 'true' }).ssl).toEqual({});
    expect(parseMysqlParams({ tls: 'skip-verify' }).ssl).toEqual({ rejectUnauthorized: false });
    expect(parseMysqlParams({ tls: 'false' }).ssl).toBeUndefined();
    expect(() => parseMysqlParams({ tls: 'custom' })).toThrow(InvalidSettingsError);
  });

  it('turns any other parameter into a session variable, binding the value', () => {
    expect(
      parseMysqlParams({ sql_mode: "'ANSI,TRADITIONAL'", wait_timeout: '600' }).sessionVariables,
    ).toEqual([
      ['sql_mode', 'ANSI,TRADITIONAL'],
      ['wait_timeout', 600],
    ]);
    expect(() => parseMysqlParams({ 'x; drop table users': '1' })).toThrow(
      'is neither a known driver parameter nor a system variable name',
    );
  });
});
