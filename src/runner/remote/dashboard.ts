import { timingSafeEqual } from 'node:crypto';
import type { BoardEntry, StageBoard } from './stage-board.js';

/** The runner dashboard's settings (SVC_UI_*); present only when it is enabled. */
export interface DashboardOptions {
  /** SVC_UI_USERNAME; empty accepts any user name with the password. */
  username: string;
  /** SVC_UI_PASSWORD. */
  password: string;
  /** SVC_UI_REALM. */
  realm: string;
  board: StageBoard;
  /** SVC_RUNNER_NAME, shown in the title. */
  runner: string;
}

/** True when the `Authorization: Basic` header names the dashboard's user and password (constant time). */
export function authorized(header: string | undefined, options: DashboardOptions): boolean {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(header ?? '');
  if (match === null) return false;
  const decoded = Buffer.from(match[1] ?? '', 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return false;
  const userOk = options.username === '' || same(decoded.slice(0, colon), options.username);
  const passwordOk = same(decoded.slice(colon + 1), options.password);
  return userOk && passwordOk;
}

function same(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

const escape = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function duration(from: number, to: number): string {
  const seconds = Math.max(0, Math.round((to - from) / 1000));
  return seconds < 60 ? `${seconds}s` : `${Math.floor(seconds / 60)}m ${seconds % 60}s`;
}

function rows(entries: readonly BoardEntry[], now: number): string {
  if (entries.length === 0) return '<tr><td colspan="5">none</td></tr>';
  return entries
    .map(
      (e) =>
        `<tr><td>${escape(e.repo)}</td><td>#${e.build}</td><td>${escape(e.stage)}</td>` +
        `<td class="${escape(e.status)}">${escape(e.status)}</td><td>${duration(e.started, e.finished ?? now)}</td></tr>`,
    )
    .join('\n');
}

/** The dashboard page: the stages running now and the last ones that ended; refreshes itself. */
export function dashboardPage(options: DashboardOptions, capacity: number, now: number): string {
  const { running, recent } = options.board.snapshot();
  const head = '<tr><th>repository</th><th>build</th><th>stage</th><th>status</th><th>time</th></tr>';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="5">
<title>svc runner ${escape(options.runner)}</title>
<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;margin-bottom:2em}
td,th{padding:.3em .8em;border-bottom:1px solid #ddd;text-align:left}.success{color:#2a7}
.failure,.error,.killed{color:#c33}.running{color:#27c}</style></head>
<body><h1>svc runner ${escape(options.runner)}</h1>
<h2>Running: ${running.length} of ${capacity}</h2><table>${head}
${rows(running, now)}</table>
<h2>Recently finished</h2><table>${head}
${rows(recent, now)}</table></body></html>
`;
}
