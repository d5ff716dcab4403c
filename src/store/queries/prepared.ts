import type { Compilable, CompiledQuery, Kysely, QueryResult } from 'kysely';
import type { Tables } from '../tables.js';

/** Stands for the value named `name` while a query is compiled; replaced by the value at each run. */
class Slot {
  constructor(readonly name: string) {}
}

/**
 * A query built and compiled by Kysely once, then run with new values: the SQL text is kept, only
 * its parameters change. For the hot writes of the runner protocol (accept, running, done), where
 * building and compiling each time cost more server CPU than sending the statement. `build` gets a
 * placeholder for each value and must use each where a value goes (not in SQL text or in a
 * condition of the builder); parameters it gives itself (`version + 1`) are kept as compiled.
 */
export class Prepared<V extends Record<string, unknown>, R> {
  readonly #db: Kysely<Tables>;
  readonly #compiled: CompiledQuery<R>;
  /** Per parameter of the compiled SQL: the name of its value, or the constant compiled in. */
  readonly #params: readonly unknown[];

  /** `R` is the row type the query returns (Kysely's builder types only the last of several shapes). */
  constructor(db: Kysely<Tables>, build: (values: V) => Compilable<unknown>) {
    this.#db = db;
    const slots = new Proxy({} as V, { get: (_, name) => new Slot(String(name)) });
    this.#compiled = build(slots).compile();
    this.#params = this.#compiled.parameters;
  }

  execute(values: V): Promise<QueryResult<R>> {
    const parameters = this.#params.map((param) => (param instanceof Slot ? values[param.name] : param));
    return this.#db.executeQuery({ ...this.#compiled, parameters });
  }
}
