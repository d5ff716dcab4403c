/*
 * Counts the SQL statements this process sends, at the drivers (better-sqlite3, pg, mysql2), so
 * that a benchmark can say how many statements one unit of work costs. Counting is installed once
 * for the whole process and costs one increment per statement.
 */
import Database from 'better-sqlite3';
import mysql from 'mysql2';
import pg from 'pg';

let statements = 0;
let installed = false;

function counting<T extends object>(prototype: T, method: keyof T): void {
  const original = prototype[method] as unknown as (...args: unknown[]) => unknown;
  Object.defineProperty(prototype, method, {
    configurable: true,
    writable: true,
    value: function (this: unknown, ...args: unknown[]): unknown {
      statements++;
      return original.apply(this, args);
    },
  });
}

/** Starts counting (once); every later statement of any database adds one. */
export function countStatements(): void {
  if (installed) return;
  installed = true;
  // SQLite statements are prepared once and run many times (src/store/dialects/sqlite-statements.ts):
  // count the runs. pg and mysql2 get one query call each.
  const memory = new Database(':memory:');
  const statement = Object.getPrototypeOf(memory.prepare('select 1')) as object;
  memory.close();
  for (const run of ['run', 'all', 'get', 'iterate'] as const) {
    counting(statement as Record<typeof run, unknown>, run);
  }
  counting(pg.Client.prototype, 'query');
  counting(mysql.Connection.prototype, 'query');
}

/** Statements sent since counting started. */
export function statementsSent(): number {
  return statements;
}
