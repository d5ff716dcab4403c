import type { Status } from '../../../core/status.js';

/** The words of Drone's status badges, and their colours (shields.io's palette). */
export const BADGE_LABELS = ['success', 'failure', 'started', 'error', 'none'] as const;
export type BadgeLabel = (typeof BADGE_LABELS)[number];

const COLOURS: Record<BadgeLabel, string> = {
  success: '#4c1',
  failure: '#e05d44',
  started: '#dfb317',
  error: '#9f9f9f',
  none: '#9f9f9f',
};

/**
 * The badge word for a build status, as Drone shows it: builds not done yet (waiting, running,
 * waiting for approval) are `started`; `error` is its own word; every other unhappy end (failure,
 * killed, declined, skipped) is `failure`. No build at all is `none`.
 */
export function badgeLabel(status: Status | undefined): BadgeLabel {
  switch (status) {
    case undefined:
      return 'none';
    case 'pending':
    case 'running':
    case 'blocked':
    case 'waiting_on_dependencies':
      return 'started';
    case 'success':
      return 'success';
    case 'error':
      return 'error';
    case 'failure':
    case 'killed':
    case 'declined':
    case 'skipped':
      return 'failure';
  }
}

/** Approximate width in pixels of lowercase text at 11px in the badge's fonts (Verdana/DejaVu Sans). */
function textWidth(text: string): number {
  return text.length * 7;
}

/**
 * A flat two-part badge, `build | <label>`, in the usual shape of status badges: a grey left part,
 * a coloured right part, rounded corners, text with a faint shadow.
 */
export function badgeSvg(label: BadgeLabel): string {
  const left = 'build';
  const leftWidth = textWidth(left) + 2;
  const rightWidth = textWidth(label) + 5;
  const width = leftWidth + rightWidth;
  const colour = COLOURS[label];
  const text = (value: string, x: number): string =>
    `<text x="${x}" y="15" fill="#010101" fill-opacity=".3">${value}</text><text x="${x}" y="14">${value}</text>`;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="20" role="img" aria-label="build: ${label}">` +
    `<title>build: ${label}</title>` +
    `<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>` +
    `<clipPath id="r"><rect width="${width}" height="20" rx="3" fill="#fff"/></clipPath>` +
    `<g clip-path="url(#r)"><rect width="${leftWidth}" height="20" fill="#555"/>` +
    `<rect x="${leftWidth}" width="${rightWidth}" height="20" fill="${colour}"/>` +
    `<rect width="${width}" height="20" fill="url(#s)"/></g>` +
    `<g fill="#fff" text-anchor="middle" font-family="DejaVu Sans,Verdana,Geneva,sans-serif" font-size="11">` +
    text(left, leftWidth / 2) +
    text(label, leftWidth + rightWidth / 2) +
    `</g></svg>`
  );
}
