/**
 * A Content-Disposition header (RFC 6266), `attachment` (download) or `inline`, naming the file:
 * `filename` with an ASCII stand-in (characters other than letters, digits, `.`, `-`, `_` and space
 * become `_`) for old clients, and `filename*` (RFC 5987) with the name itself, UTF-8 and
 * percent-encoded. Quotes, backslashes and line breaks never reach the header.
 */
export function disposition(kind: 'attachment' | 'inline', name: string): string {
  const plain = name.replace(/[^A-Za-z0-9._\- ]/g, '_') || 'download';
  const encoded = encodeURIComponent(name).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `${kind}; filename="${plain}"; filename*=UTF-8''${encoded}`;
}
