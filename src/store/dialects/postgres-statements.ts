import type pg from 'pg';

/** Distinct SQL texts given a name; others run unnamed (svc's queries are a few hundred texts). */
const CAPACITY = 1000;

/**
 * Names for SQL texts, shared by the connections of one pool: a query with a name is parsed and
 * planned by PostgreSQL once per connection and then only bound and executed, instead of parsed
 * and planned each time (Kysely sends every query unnamed). Beyond CAPACITY texts (`in (…)` lists
 * of every length), further texts run unnamed, so that no connection keeps more than that.
 *
 * A connection pooler that hands one client's statements to another server connection
 * (PgBouncer's transaction pooling before 1.21) makes PostgreSQL answer that a statement does not
 * exist or already exists: then the query runs again unnamed, and so do all later ones.
 */
export class StatementNames {
  readonly #names = new Map<string, string>();
  /** Names given so far: a name is never given twice, since connections keep their statements. */
  #given = 0;
  #off = false;

  /** SQL texts named now. */
  get size(): number {
    return this.#names.size;
  }

  /** The name of `text`, or undefined when it runs unnamed. */
  nameOf(text: string): string | undefined {
    if (this.#off) return undefined;
    let name = this.#names.get(text);
    if (name === undefined && this.#given < CAPACITY) {
      name = `svc_${++this.#given}`;
      this.#names.set(text, name);
    }
    return name;
  }

  /**
   * Makes `client` run the queries Kysely gives it (text and values) as named statements. Other
   * forms of query (a config object, a submittable) pass through unchanged.
   */
  use(client: pg.ClientBase): void {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    const named = (...args: unknown[]): unknown => {
      const [text, values] = args;
      if (typeof text !== 'string' || !(Array.isArray(values) || values === undefined) || args.length > 2) {
        return query(...args);
      }
      const name = this.nameOf(text);
      if (name === undefined) return query(...args);
      return (query({ name, text, values }) as Promise<unknown>).catch((error: unknown) => {
        if (isStalePlan(error)) {
          // The table changed under the statement (another svc migrated it): plan the text afresh.
          this.#names.delete(text);
        } else if (isLostStatement(error)) {
          this.#off = true;
        } else throw error;
        return named(...args);
      });
    };
    Object.defineProperty(client, 'query', { value: named, configurable: true, writable: true });
  }
}

function code(error: unknown): unknown {
  return error instanceof Error ? (error as { code?: unknown }).code : undefined;
}

/** PostgreSQL refuses a prepared `select *` whose table gained or lost columns since it was planned. */
function isStalePlan(error: unknown): boolean {
  return (
    code(error) === '0A000' && (error as Error).message.includes('cached plan must not change result type')
  );
}

/** The server connection does not hold the statements this client prepared (a pooler in between). */
function isLostStatement(error: unknown): boolean {
  // invalid_sql_statement_name, duplicate_prepared_statement
  return code(error) === '26000' || code(error) === '42P05';
}
