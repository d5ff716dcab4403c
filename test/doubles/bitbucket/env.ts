import type { Context, Reply } from '../forge/router.js';
import type { ForgeState } from '../forge/state.js';

/** The double's addresses: the web one (OAuth) and the API one (REST), both on one server here. */
export interface BitbucketUrls {
  web: string;
  api: string;
}

export interface Env {
  state: ForgeState;
  urls: BitbucketUrls;
  app: { key: string; secret: string };
  codes: Map<string, string>;
  access: Map<string, { login: string; expires: number }>;
  refresh: Map<string, string>;
  now: () => number;
  limitedUntil: number;
  unknown: string[];
}

export interface BitbucketRoute {
  method: string;
  pattern: string;
  handler: (ctx: Context) => Reply;
}

/** Bitbucket's error envelope. */
export const error = (status: number, message: string, extra: Record<string, unknown> = {}): Reply => ({
  status,
  body: { type: 'error', error: { message, ...extra } },
});

/**
 * A page of a list: `values`, `pagelen` (default 10, at most 100, unless the endpoint has its own),
 * `page`, `size` and `next`.
 */
export function paginate<T>(
  env: Env,
  ctx: Context,
  items: readonly T[],
  sizes: { pagelen: number; max: number } = { pagelen: 10, max: 100 },
): Reply {
  const asked = Number(ctx.url.searchParams.get('pagelen') ?? sizes.pagelen) || sizes.pagelen;
  const pagelen = Math.min(sizes.max, Math.max(1, asked));
  const page = Math.max(1, Number(ctx.url.searchParams.get('page') ?? 1) || 1);
  const next = new URLSearchParams(ctx.url.searchParams);
  next.set('page', String(page + 1));
  next.set('pagelen', String(pagelen));
  return {
    status: 200,
    body: {
      pagelen,
      page,
      size: items.length,
      values: items.slice((page - 1) * pagelen, page * pagelen),
      ...(page * pagelen < items.length ? { next: `${env.urls.api}${ctx.path}?${next.toString()}` } : {}),
    },
  };
}
