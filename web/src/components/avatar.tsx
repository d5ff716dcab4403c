/** A few colours that read with white initials in both themes (contrast above 4.5:1). */
const SHADES = ['#0b62d6', '#1a7f37', '#8250df', '#bc4c00', '#0f766e', '#b42a4d'];

/** A steady colour per login, so that a person keeps theirs across pages. */
function shadeOf(login: string): string {
  let hash = 0;
  for (const char of login) hash = (hash * 31 + (char.codePointAt(0) ?? 0)) >>> 0;
  return SHADES[hash % SHADES.length] ?? '#0b62d6';
}

/** Whether the page may show the image: the pages allow images from svc itself and over HTTPS. */
function shown(url: string): boolean {
  return url.startsWith('https://') || (url.startsWith('/') && !url.startsWith('//'));
}

/**
 * A person's picture from the git provider, or their initials on a colour of their own where there
 * is none the page may load. Decorative: the login is always written next to it.
 */
export function Avatar({
  login,
  url,
  size = 20,
}: {
  login: string;
  url?: string | undefined;
  size?: number;
}) {
  if (url !== undefined && shown(url))
    return <img class="avatar" src={url} alt="" width={size} height={size} loading="lazy" />;
  const initials =
    login
      .replace(/[^A-Za-z0-9]/g, '')
      .slice(0, 2)
      .toUpperCase() || '?';
  return (
    <svg class="avatar" width={size} height={size} viewBox="0 0 20 20" aria-hidden="true">
      <circle cx="10" cy="10" r="10" fill={shadeOf(login)} />
      <text x="10" y="14" text-anchor="middle" font-size="9" fill="#fff">
        {initials}
      </text>
    </svg>
  );
}
