import type { Context, Reply } from '../forge/router.js';

/**
 * A page of a list as Gitea answers it: `page` (from 1) and `limit` (default 30, at most 50, larger
 * values cut to 50), a `Link` header whose entries are joined by a comma without a space, and
 * `X-Total-Count`.
 */
export function paginate<T>(ctx: Context, items: readonly T[], api: string): Reply {
  const asked = Number(ctx.url.searchParams.get('limit') ?? 0) || 0;
  const limit = asked <= 0 ? 30 : Math.min(asked, 50);
  const page = Math.max(1, Number(ctx.url.searchParams.get('page') ?? 1) || 1);
  const last = Math.max(1, Math.ceil(items.length / limit));
  const link = (n: number, rel: string) => {
    const query = new URLSearchParams(ctx.url.searchParams);
    query.set('limit', String(limit));
    query.set('page', String(n));
    return `<${api}${ctx.path}?${query.toString()}>; rel="${rel}"`;
  };
  const rels: string[] = [];
  if (page < last) rels.push(link(page + 1, 'next'), link(last, 'last'));
  if (page > 1) rels.push(link(1, 'first'), link(page - 1, 'prev'));
  return {
    status: 200,
    body: items.slice((page - 1) * limit, page * limit),
    headers: {
      'x-total-count': String(items.length),
      ...(rels.length === 0 ? {} : { link: rels.join(',') }),
    },
  };
}
