import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import { CONTENT_SECURITY_POLICY } from './spa.js';

/** Escapes text for HTML element content and double-quoted attribute values. */
export function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

// The web UI's icon (web/src/favicon.svg), inline: the server's own pages work without the UI's build.
const ICON =
  'data:image/svg+xml,' +
  encodeURIComponent(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#0b62d6"/><path d="M9 17l5 5 9-11" fill="none" stroke="#fff" stroke-width="4" stroke-linecap="round" stroke-linejoin="round"/></svg>',
  );

/**
 * The pages' only style, inline (no asset to serve): the policy below allows it by the SHA-256 of
 * exactly the element's text, which a browser hashes.
 */
const STYLE = `
body { font-family: system-ui, sans-serif; max-width: 46rem; margin: 3rem auto; padding: 0 1rem; line-height: 1.5; color: #222; }
code { background: #f2f2f2; padding: 0 .25rem; border-radius: 3px; }
.note { color: #555; }
pre { background: #f2f2f2; padding: .5rem .75rem; overflow-x: auto; border-radius: 3px; }
pre code { padding: 0; }
details { margin: .5rem 0; }
summary { cursor: pointer; font-weight: 600; }
.steps > li { margin-bottom: 1rem; }
@media (prefers-color-scheme: dark) {
  body { background: #16181d; color: #ddd; }
  code, pre { background: #262a33; }
  .note { color: #aaa; }
  a { color: #8ab4f8; }
}
`;

/**
 * The Content-Security-Policy of svc's server-rendered pages: the web UI's (no script at all here,
 * nothing from elsewhere, no framing), with the inline style above allowed by its SHA-256 alone.
 */
export const PAGE_CONTENT_SECURITY_POLICY = CONTENT_SECURITY_POLICY.replace(
  "style-src 'self'",
  `style-src 'self' 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`,
);

/** Sends a page of htmlPage() with its type and the same protections as the web UI's page. */
export function sendHtml(reply: FastifyReply, html: string): FastifyReply {
  return reply
    .type(HTML)
    .header('content-security-policy', PAGE_CONTENT_SECURITY_POLICY)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'same-origin')
    .send(html);
}

/**
 * A complete, self-contained HTML page; `body` must already be escaped. Its content is the page's
 * main landmark, as screen readers and axe-core expect of every page.
 */
export function htmlPage(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="icon" type="image/svg+xml" href="${ICON}">
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

/** The content type of every HTML page svc serves. */
export const HTML = 'text/html; charset=utf-8';
