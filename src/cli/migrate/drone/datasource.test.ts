import { describe, expect, it } from 'vitest';
import type { Datasource } from '../../../core/datasource.js';
import { parseDroneDatasource, sameDatabase } from './datasource.js';

describe('Drone’s datasource', () => {
  it('reads Drone’s three forms, the driver from the form when not given', () => {
    expect(parseDroneDatasource('drone.sqlite', undefined, '/data')).toEqual({
      driver: 'embedded_sql',
      path: '/data/drone.sqlite',
    });
    expect(parseDroneDatasource('root:pw@tcp(db:3306)/drone?parseTime=true', undefined, '/')).toMatchObject({
      driver: 'sql_a',
      host: 'db',
      database: 'drone',
    });
    expect(
      parseDroneDatasource('postgres://drone:pw@db:5432/drone?sslmode=disable', 'postgres', '/'),
    ).toMatchObject({
      driver: 'sql_b',
      host: 'db',
      database: 'drone',
    });
  });

  it('names the option that is wrong', () => {
    expect(parseDroneDatasource('', undefined, '/')).toContain('--from: Drone’s datasource is required');
    expect(parseDroneDatasource('x', 'oracle', '/')).toContain('--from-driver: unknown driver "oracle"');
    expect(parseDroneDatasource('drone.sqlite', 'mysql', '/')).toContain('--from: not a mysql datasource');
  });

  it('knows two datasources of the same database', () => {
    const parsed = (value: string, cwd = '/'): Datasource => {
      const datasource = parseDroneDatasource(value, undefined, cwd);
      if (typeof datasource === 'string') throw new Error(datasource);
      return datasource;
    };
    const file = parsed('data/x.sqlite', '/srv');
    expect(sameDatabase(file, parsed('/srv/data/x.sqlite'), '/')).toBe(true);
    const mysql = parsed('u:p@tcp(db:3306)/drone');
    expect(sameDatabase(mysql, parsed('other:q@tcp(db:3306)/drone?tls=true'), '/')).toBe(true);
    expect(sameDatabase(file, mysql, '/')).toBe(false);
  });
});
