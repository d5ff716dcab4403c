/**
 * The `rel="next"` target of an RFC 8288 `Link` header, as GitHub and Gitea send on list pages;
 * undefined on the last page.
 */
export function nextLink(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(',')) {
    const target = /<([^>]*)>/.exec(part)?.[1];
    // A rel may list several relation types ("prev next"), quoted or not.
    const rels = /;\s*rel\s*=\s*"?([^";]*)"?/i.exec(part)?.[1]?.split(/\s+/) ?? [];
    if (target !== undefined && rels.includes('next')) return target;
  }
  return undefined;
}
