import { describe, expect, it } from 'vitest';
import { InvalidSettingsError } from '../../core/errors.js';
import { parsePostgresParams } from './postgres-params.js';

describe('sql_b datasource parameters', () => {
  it('maps sslmode as libpq does, as far as Node’s driver can', () => {
    expect(parsePostgresParams({ sslmode: 'disable' }).ssl).toBe(false);
    expect(parsePostgresParams({}).ssl).toBe(false);
    expect(parsePostgresParams({ sslmode: 'require' }).ssl).toEqual({ rejectUnauthorized: false });
    expect(parsePostgresParams({ sslmode: 'verify-full' }).ssl).toEqual({ rejectUnauthorized: true });
    expect(parsePostgresParams({ sslmode: 'verify-ca' }).ssl).toMatchObject({ rejectUnauthorized: true });
    expect(() => parsePostgresParams({ sslmode: 'always' })).toThrow('sslmode=always is not one of');
  });

  it('reads connect_timeout in seconds and application_name', () => {
    expect(parsePostgresParams({ connect_timeout: '3', application_name: 'ci' })).toMatchObject({
      connectTimeoutMs: 3000,
      applicationName: 'ci',
    });
    expect(() => parsePostgresParams({ connect_timeout: '3s' })).toThrow(InvalidSettingsError);
  });

  it('refuses a certificate file it cannot read', () => {
    expect(() => parsePostgresParams({ sslmode: 'verify-full', sslrootcert: '/nonexistent/ca.pem' })).toThrow(
      'sslrootcert=/nonexistent/ca.pem cannot be read',
    );
  });
});
