import { normalizeRegistry } from './images.js';

/** Credentials for one registry. */
export interface RegistryAuth {
  readonly address: string;
  readonly username: string;
  readonly password: string;
}

/**
 * The credentials in a Docker `config.json` (what an `image_pull_secrets` secret holds): each entry of
 * `auths` with `auth` (base64 of `user:password`) or `username` and `password`. Throws with a message
 * for the build log when the text is not such a file.
 */
export function parseDockerConfig(text: string): RegistryAuth[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error('is not JSON; expected the content of a Docker config.json ({"auths": {…}})');
  }
  const auths = isRecord(parsed) ? parsed.auths : undefined;
  if (!isRecord(auths))
    throw new Error('has no "auths" object; expected the content of a Docker config.json');
  const result: RegistryAuth[] = [];
  for (const [address, entry] of Object.entries(auths)) {
    if (!isRecord(entry)) continue;
    const credentials = credentialsOf(entry);
    if (credentials !== undefined) result.push({ address: normalizeRegistry(address), ...credentials });
  }
  return result;
}

function credentialsOf(entry: Record<string, unknown>): { username: string; password: string } | undefined {
  if (typeof entry.auth === 'string' && entry.auth !== '') {
    const decoded = Buffer.from(entry.auth, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon === -1) return undefined;
    return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
  }
  if (typeof entry.username === 'string' && typeof entry.password === 'string') {
    return { username: entry.username, password: entry.password };
  }
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
