import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { CachedStatements } from './sqlite-statements.js';

describe('CachedStatements', () => {
  let statements: CachedStatements | undefined;
  afterEach(() => statements?.close());

  it('prepares each SQL text once and reuses the statement', () => {
    statements = new CachedStatements(new Database(':memory:'));
    const first = statements.prepare('select ? as n');
    expect(statements.prepare('select ? as n')).toBe(first);
    expect(first.all([1])).toEqual([{ n: 1 }]);
    expect(statements.prepare('select ? as n').all([2])).toEqual([{ n: 2 }]);
  });

  it('keeps working after the schema changed under a cached statement', () => {
    statements = new CachedStatements(new Database(':memory:'));
    statements.prepare('create table t (a integer)').run([]);
    statements.prepare('insert into t (a) values (?)').run([1]);
    const read = statements.prepare('select * from t');
    expect(read.all([])).toEqual([{ a: 1 }]);
    statements.prepare('alter table t add column b integer not null default 2').run([]);
    expect(statements.prepare('select * from t').all([])).toEqual([{ a: 1, b: 2 }]);
  });

  it('drops the least recently used statements beyond its capacity', () => {
    statements = new CachedStatements(new Database(':memory:'));
    const kept = statements.prepare('select 0');
    for (let i = 1; i <= 600; i++) {
      statements.prepare(`select ${i}`);
      // Used again and again: stays.
      expect(statements.prepare('select 0')).toBe(kept);
    }
    const dropped = statements.prepare('select 1');
    expect(statements.prepare('select 1')).toBe(dropped);
    expect(dropped.all([])).toEqual([{ 1: 1 }]);
  });
});
