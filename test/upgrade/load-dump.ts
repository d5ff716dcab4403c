/*
 * Loading a database dump with the product's own client, as an operator restores a backup, and
 * reading a schema's columns: what the upgrade and backup tests need besides svc's store.
 */
import { execFileSync } from 'node:child_process';
import Database from 'better-sqlite3';
import type { Datasource } from '../../src/core/datasource.js';

/** Runs `text` (a dump: sqlite3 .dump, mariadb-dump or pg_dump) against the empty database. */
export function loadDump(datasource: Datasource, text: string): void {
  switch (datasource.driver) {
    case 'embedded_sql': {
      const db = new Database(datasource.path);
      try {
        db.exec(text);
      } finally {
        db.close();
      }
      return;
    }
    case 'sql_a':
      execFileSync('mariadb', [...mariadbArgs(datasource), datasource.database], {
        input: text,
        env: { ...process.env, MYSQL_PWD: datasource.password },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      return;
    case 'sql_b':
      execFileSync('psql', [...psqlArgs(datasource), '--set', 'ON_ERROR_STOP=1', '--quiet'], {
        input: text,
        env: { ...process.env, PGPASSWORD: datasource.password },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      return;
  }
}

export function mariadbArgs(datasource: Extract<Datasource, { driver: 'sql_a' }>): string[] {
  return [`--host=${datasource.host}`, `--port=${datasource.port}`, `--user=${datasource.user}`];
}

export function psqlArgs(datasource: Extract<Datasource, { driver: 'sql_b' }>): string[] {
  return [
    `--host=${datasource.host}`,
    `--port=${datasource.port}`,
    `--username=${datasource.user}`,
    `--dbname=${datasource.database}`,
  ];
}

/** A column as the database describes it: whether an INSERT may leave it out. */
export interface ColumnShape {
  /** Nullable, or with a default (or an identity the database fills). */
  readonly optional: boolean;
}

/** Every column of svc's tables, `table.column`, read from the database's own catalogue. */
export function columnsOf(datasource: Datasource): Map<string, ColumnShape> {
  const columns = new Map<string, ColumnShape>();
  switch (datasource.driver) {
    case 'embedded_sql': {
      const db = new Database(datasource.path, { readonly: true });
      try {
        const tables = db
          .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
          .all() as { name: string }[];
        for (const { name } of tables) {
          const info = db.prepare(`PRAGMA table_info("${name}")`).all() as {
            name: string;
            notnull: number;
            dflt_value: unknown;
            pk: number;
          }[];
          for (const c of info)
            columns.set(`${name}.${c.name}`, {
              optional: c.notnull === 0 || c.dflt_value !== null || c.pk > 0,
            });
        }
      } finally {
        db.close();
      }
      return columns;
    }
    case 'sql_a': {
      const query =
        'SELECT table_name, column_name, is_nullable, column_default, extra FROM information_schema.columns ' +
        `WHERE table_schema = '${datasource.database}'`;
      const out = execFileSync(
        'mariadb',
        [...mariadbArgs(datasource), '--batch', '--skip-column-names', '-e', query],
        {
          encoding: 'utf8',
          env: { ...process.env, MYSQL_PWD: datasource.password },
        },
      );
      for (const line of out.split('\n').filter((l) => l !== '')) {
        const [table, column, nullable, fallback, extra] = line.split('\t');
        const optional =
          nullable === 'YES' ||
          (fallback !== undefined && fallback !== 'NULL') ||
          /auto_increment/.test(extra ?? '');
        columns.set(`${table}.${column}`, { optional });
      }
      return columns;
    }
    case 'sql_b': {
      const query =
        "SELECT table_name, column_name, is_nullable, coalesce(column_default, ''), is_identity FROM information_schema.columns " +
        "WHERE table_schema = 'public'";
      const out = execFileSync(
        'psql',
        [...psqlArgs(datasource), '--tuples-only', '--no-align', '--field-separator=\t', '-c', query],
        {
          encoding: 'utf8',
          env: { ...process.env, PGPASSWORD: datasource.password },
        },
      );
      for (const line of out.split('\n').filter((l) => l !== '')) {
        const [table, column, nullable, fallback, identity] = line.split('\t');
        columns.set(`${table}.${column}`, {
          optional: nullable === 'YES' || fallback !== '' || identity === 'YES',
        });
      }
      return columns;
    }
  }
}
