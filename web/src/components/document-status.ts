import { useEffect } from 'preact/hooks';

/** How a status looks outside the page: a glyph for the tab's title, a colour and mark for its icon. */
interface Look {
  glyph: string;
  colour: string;
  /** The icon's white mark, as SVG elements on a 32 × 32 rounded square. */
  mark: string;
}

const CHECK =
  '<path d="M9 17l5 5 9-11" fill="none" stroke="#fff" stroke-width="4" stroke-linecap="round" stroke-linejoin="round"/>';
const CROSS = '<path d="M10 10l12 12M22 10L10 22" stroke="#fff" stroke-width="4" stroke-linecap="round"/>';
const RING = '<circle cx="16" cy="16" r="7" fill="none" stroke="#fff" stroke-width="4"/>';
const DOTS =
  '<g fill="#fff"><circle cx="9" cy="16" r="2.5"/><circle cx="16" cy="16" r="2.5"/><circle cx="23" cy="16" r="2.5"/></g>';
const DASH = '<path d="M9 16h14" stroke="#fff" stroke-width="4" stroke-linecap="round"/>';

const FAILED: Look = { glyph: '✕', colour: '#c62828', mark: CROSS };
const WAITING: Look = { glyph: '○', colour: '#9a6700', mark: DOTS };

/** The colours are the light theme's (style.css): a tab strip is not themed with the page. */
const LOOKS: Record<string, Look> = {
  success: { glyph: '✓', colour: '#1a7f37', mark: CHECK },
  failure: FAILED,
  error: FAILED,
  killed: FAILED,
  declined: FAILED,
  running: { glyph: '●', colour: '#0b62d6', mark: RING },
  pending: WAITING,
  blocked: WAITING,
  waiting_on_dependencies: WAITING,
  skipped: { glyph: '–', colour: '#5f6b76', mark: DASH },
};

/** The icon of a status as a data URL, or undefined for a status svc does not know. */
export function statusIcon(status: string): string | undefined {
  const look = LOOKS[status];
  if (look === undefined) return undefined;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="${look.colour}"/>${look.mark}</svg>`;
  return `data:image/svg+xml,${encodeURIComponent(svg)}`;
}

/** `✓ octocat/app #12 (success)`: a title that says a build's status before its name. */
export function statusTitle(status: string | undefined, what: string): string {
  if (status === undefined) return what;
  const look = LOOKS[status];
  return `${look === undefined ? '' : `${look.glyph} `}${what} (${status.replaceAll('_', ' ')})`;
}

/** The browser tab's title while the page is shown: `title · svc`; undefined leaves it to another. */
export function useTitle(title: string | undefined): void {
  useEffect(() => {
    if (title !== undefined) document.title = title === '' ? 'svc' : `${title} · svc`;
  }, [title]);
}

/**
 * The tab's icon shows `status` (a build's) while the page is shown, so that a build left open in
 * a background tab says when it ends; svc's own icon comes back when the page goes.
 */
export function useStatusIcon(status: string | undefined): void {
  useEffect(() => {
    const link = document.querySelector<HTMLLinkElement>('link[rel="icon"]');
    const icon = status === undefined ? undefined : statusIcon(status);
    if (link === null || icon === undefined) return;
    const own = link.href;
    link.href = icon;
    return () => {
      link.href = own;
    };
  }, [status]);
}
