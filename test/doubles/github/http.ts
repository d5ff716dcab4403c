import type { Context, Reply } from '../forge/router.js';

export { jsonBody, match, type Context, type Handler, type Reply, type Route } from '../forge/router.js';

const DOCS = 'https://docs.github.com/rest';

/** GitHub's error body: `message` and `documentation_url`, plus validation `errors` for 422. */
export function error(status: number, message: string, errors?: unknown[]): Reply {
  return {
    status,
    body: { message, documentation_url: DOCS, ...(errors ? { errors } : {}), status: String(status) },
  };
}

export const notFound = (): Reply => error(404, 'Not Found');

/** 422 Validation Failed with one error, as GitHub reports bad input. */
export function invalid(resource: string, field: string, message: string): Reply {
  return error(422, 'Validation Failed', [{ resource, field, code: 'custom', message }]);
}

/** A request body that is not a JSON object, as GitHub answers it. */
export const badJson = (): Reply => error(400, 'Problems parsing JSON');

/**
 * A page of a list with GitHub's pagination (docs: rest/using-the-rest-api/using-pagination-in-the-rest-api):
 * `per_page` (default 30, at most 100) and `page`, and a `Link` header with first/prev/next/last.
 */
export function paginate<T>(ctx: Context, items: readonly T[], apiUrl: string): Reply {
  const perPage = Math.min(100, Math.max(1, Number(ctx.url.searchParams.get('per_page') ?? 30) || 30));
  const page = Math.max(1, Number(ctx.url.searchParams.get('page') ?? 1) || 1);
  const last = Math.max(1, Math.ceil(items.length / perPage));
  const link = (n: number) => {
    const query = new URLSearchParams(ctx.url.searchParams);
    query.set('per_page', String(perPage));
    query.set('page', String(n));
    return `<${apiUrl}${ctx.path}?${query.toString()}>`;
  };
  const rels: string[] = [];
  if (page > 1) rels.push(`${link(page - 1)}; rel="prev"`);
  if (page < last) rels.push(`${link(page + 1)}; rel="next"`, `${link(last)}; rel="last"`);
  if (page > 1) rels.push(`${link(1)}; rel="first"`);
  return {
    status: 200,
    body: items.slice((page - 1) * perPage, page * perPage),
    headers: rels.length === 0 ? {} : { link: rels.join(', ') },
  };
}
