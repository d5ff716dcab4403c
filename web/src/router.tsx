import type { ComponentChildren, TargetedMouseEvent } from 'preact';
import { useEffect, useState } from 'preact/hooks';

/** The current path, following pushState navigation and the back/forward buttons. */
export function usePath(): string {
  const [path, setPath] = useState(location.pathname);
  useEffect(() => {
    const update = () => setPath(location.pathname);
    addEventListener('popstate', update);
    addEventListener('svc:navigate', update);
    return () => {
      removeEventListener('popstate', update);
      removeEventListener('svc:navigate', update);
    };
  }, []);
  return path;
}

/** The current query string (`?days=30`), following navigation like usePath. */
export function useSearch(): string {
  const [search, setSearch] = useState(location.search);
  useEffect(() => {
    const update = () => setSearch(location.search);
    addEventListener('popstate', update);
    addEventListener('svc:navigate', update);
    return () => {
      removeEventListener('popstate', update);
      removeEventListener('svc:navigate', update);
    };
  }, []);
  return search;
}

export function navigate(to: string): void {
  if (to === location.pathname + location.search) return;
  history.pushState(null, '', to);
  dispatchEvent(new Event('svc:navigate'));
  scrollTo(0, 0);
}

/** An in-app link: a real `<a href>` (bookmarkable, opens in a new tab) that navigates without reload. */
export function Link(props: {
  href: string;
  class?: string;
  children: ComponentChildren;
  'aria-label'?: string;
  /** One of the page's list items that `j` and `k` move through (components/shortcuts.tsx). */
  nav?: boolean;
}) {
  const onClick = (event: TargetedMouseEvent<HTMLAnchorElement>) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(props.href);
  };
  return (
    <a
      href={props.href}
      class={props.class}
      onClick={onClick}
      aria-label={props['aria-label']}
      data-nav={props.nav === true ? 'item' : undefined}
    >
      {props.children}
    </a>
  );
}

/** The page a path shows, with its parameters. */
export type Route =
  | { page: 'repos' }
  | { page: 'account' }
  | { page: 'admin' }
  | { page: 'admin-running' }
  | { page: 'settings'; owner: string; name: string }
  | { page: 'repo'; owner: string; name: string }
  | { page: 'build'; owner: string; name: string; number: number }
  | { page: 'log'; owner: string; name: string; number: number; stage: number; step: number }
  | { page: 'tests'; owner: string; name: string }
  | { page: 'test'; owner: string; name: string; id: number }
  | { page: 'insights'; owner: string; name: string }
  | { page: 'org-insights'; org: string }
  | { page: 'missing' };

export function routeOf(path: string): Route {
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  const [owner, name, number, stage, step] = parts;
  if (parts.length === 0) return { page: 'repos' };
  if (parts.length === 1 && owner === 'account') return { page: 'account' };
  if (owner === 'admin') {
    if (parts.length === 1) return { page: 'admin' };
    return parts.length === 2 && name === 'running' ? { page: 'admin-running' } : { page: 'missing' };
  }
  // `orgs` is never an owner (the server reserves it): `/orgs/{org}/insights` is an organisation's.
  if (owner === 'orgs') {
    return parts.length === 3 && number === 'insights' && name !== undefined
      ? { page: 'org-insights', org: name }
      : { page: 'missing' };
  }
  if (owner === undefined || name === undefined) return { page: 'missing' };
  if (parts.length === 2) return { page: 'repo', owner, name };
  if (parts.length === 3 && number === 'settings') return { page: 'settings', owner, name };
  if (parts.length === 3 && number === 'tests') return { page: 'tests', owner, name };
  if (parts.length === 3 && number === 'insights') return { page: 'insights', owner, name };
  if (parts.length === 4 && number === 'tests') {
    const id = Number(stage);
    return Number.isInteger(id) && id > 0 ? { page: 'test', owner, name, id } : { page: 'missing' };
  }
  const n = Number(number);
  if (!Number.isInteger(n) || n < 1) return { page: 'missing' };
  if (parts.length === 3) return { page: 'build', owner, name, number: n };
  if (parts.length === 5)
    return { page: 'log', owner, name, number: n, stage: Number(stage), step: Number(step) };
  return { page: 'missing' };
}
