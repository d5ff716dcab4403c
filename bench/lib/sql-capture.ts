/*
 * Records the SQL this process sends at the drivers (better-sqlite3, pg) while a piece of work runs:
 * the statements svc's store really runs, with their parameters, so that a benchmark can ask the
 * database for their plans. Install before opening the store: svc's PostgreSQL pool binds each
 * client's `query` when the client connects.
 */
import Database from 'better-sqlite3';
import pg from 'pg';

/** One statement as its driver got it (`?` placeholders on SQLite, `$1`… on PostgreSQL). */
export interface Captured {
  readonly sql: string;
  readonly params: readonly unknown[];
}

let recording: Captured[] | undefined;
let installed = false;

function wrap<T extends object>(
  prototype: T,
  method: keyof T,
  read: (self: unknown, args: unknown[]) => Captured | undefined,
): void {
  const original = prototype[method] as unknown as (...args: unknown[]) => unknown;
  Object.defineProperty(prototype, method, {
    configurable: true,
    writable: true,
    value: function (this: unknown, ...args: unknown[]): unknown {
      const statement = recording === undefined ? undefined : read(this, args);
      if (statement !== undefined) recording?.push(statement);
      return original.apply(this, args);
    },
  });
}

/** Params as better-sqlite3 takes them: one array, or the values one by one. */
const sqliteParams = (args: unknown[]): unknown[] =>
  args.length === 1 && Array.isArray(args[0]) ? args[0] : args;

/** Starts the recording machinery; call before the store whose SQL is to be captured opens. */
export function installCapture(): void {
  if (installed) return;
  installed = true;
  const memory = new Database(':memory:');
  const statement = Object.getPrototypeOf(memory.prepare('select 1')) as Record<
    'all' | 'get' | 'run' | 'iterate',
    unknown
  >;
  memory.close();
  for (const run of ['run', 'all', 'get', 'iterate'] as const) {
    wrap(statement, run, (self, args) => ({
      sql: (self as Database.Statement).source,
      params: sqliteParams(args),
    }));
  }
  wrap(pg.Client.prototype, 'query', (_self, args) => {
    const [first, values] = args;
    if (typeof first === 'string') return { sql: first, params: Array.isArray(values) ? values : [] };
    // svc names its statements: query({ name, text, values }).
    const config = first as { text?: unknown; values?: unknown } | undefined;
    if (typeof config?.text !== 'string') return undefined;
    return { sql: config.text, params: Array.isArray(config.values) ? config.values : [] };
  });
}

/** The statements sent while `work` ran (nothing else may run meanwhile). */
export async function capture(work: () => Promise<unknown>): Promise<Captured[]> {
  recording = [];
  try {
    await work();
    return recording;
  } finally {
    recording = undefined;
  }
}
