import { createHash } from 'node:crypto';

/**
 * An account's picture for the built-in provider, which has none to offer: the login's first letter
 * on a colour of its own, as an SVG image (served at `/git/-/avatar/<login>.svg`).
 */
export function avatarSvg(login: string): string {
  const hue = createHash('sha256').update(login.toLowerCase()).digest()[0] ?? 0;
  const letter = (login.match(/[A-Za-z0-9]/)?.[0] ?? '?').toUpperCase();
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64">` +
    `<rect width="64" height="64" fill="hsl(${Math.round((hue / 256) * 360)},45%,45%)"/>` +
    `<text x="32" y="43" font-family="sans-serif" font-size="30" fill="#fff" text-anchor="middle">${letter}</text></svg>`
  );
}
