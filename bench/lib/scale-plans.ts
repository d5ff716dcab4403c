/*
 * The plans of the SQL behind each `api-scale` route: the store calls svc's handler makes are run
 * in this process on svc's own store, their statements captured at the driver and handed to the
 * database's EXPLAIN (SQLite: EXPLAIN QUERY PLAN; PostgreSQL: EXPLAIN with the same parameters).
 */
import type { Datasource } from '../../src/core/datasource.js';
import { openStore } from '../../src/store/index.js';
import { openRaw } from './raw-db.js';
import type { ScaleRoute } from './scale-routes.js';
import type { ScaleTarget } from './scale-seed.js';
import { capture, installCapture } from './sql-capture.js';

/** A plan in one line: SQLite's details, or PostgreSQL's nodes and conditions, joined; long `in` lists cut. */
function oneLine(lines: readonly string[]): string {
  return lines
    .map((line) =>
      line
        .trim()
        .replace(/^->\s*/, '')
        .replace(/'\{[^}]{20,}\}'/g, "'{…}'"),
    )
    .join(' › ');
}

/** Per route, its reads' plans in one line each: `what: plan; what: plan…`. */
export async function routePlans(
  datasource: Datasource,
  target: ScaleTarget,
  routes: readonly ScaleRoute[],
): Promise<Map<ScaleRoute, string>> {
  installCapture();
  const store = await openStore({ datasource });
  const raw = await openRaw(datasource);
  const plans = new Map<ScaleRoute, string>();
  try {
    for (const route of routes) {
      const parts: string[] = [];
      for (const [what, read] of route.reads(store, target)) {
        const statements = await capture(read);
        const selects = statements.filter((s) => /^\s*select/i.test(s.sql));
        const distinct = [...new Map(selects.map((s) => [s.sql, s])).values()];
        for (const statement of distinct) {
          const plan = oneLine(await raw.plan(statement.sql, statement.params));
          parts.push(`${what}: ${plan.replaceAll(target.token, '<token>')}`);
        }
      }
      plans.set(route, parts.join('; '));
    }
  } finally {
    await raw.close();
    await store.close();
  }
  return plans;
}
