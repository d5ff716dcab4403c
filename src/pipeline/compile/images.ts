/**
 * Image references as Docker reads them: `golang` is `docker.io/library/golang`, `octocat/app` is
 * `docker.io/octocat/app`, and a first part with a `.` or `:` (or `localhost`) is a registry host.
 */

/** The registry host an image is pulled from (`docker.io` for Docker Hub). */
export function imageRegistry(image: string): string {
  const { host } = splitHost(image);
  return host === undefined ? 'docker.io' : normalizeRegistry(host);
}

/** The image's repository without tag or digest, fully qualified. */
export function imageRepository(image: string): string {
  const withoutDigest = image.split('@')[0] ?? image;
  const colon = withoutDigest.lastIndexOf(':');
  const name = colon > withoutDigest.lastIndexOf('/') ? withoutDigest.slice(0, colon) : withoutDigest;
  const { host, path } = splitHost(name);
  const registry = host === undefined ? 'docker.io' : normalizeRegistry(host);
  return `${registry}/${registry === 'docker.io' && !path.includes('/') ? `library/${path}` : path}`;
}

function splitHost(name: string): { host: string | undefined; path: string } {
  const slash = name.indexOf('/');
  if (slash === -1) return { host: undefined, path: name };
  const first = name.slice(0, slash);
  const isHost = first.includes('.') || first.includes(':') || first === 'localhost';
  return isHost ? { host: first, path: name.slice(slash + 1) } : { host: undefined, path: name };
}

/** Whether two references name the same image, whatever their tags (Drone's rule for privileged plugins). */
export function sameImage(a: string, b: string): boolean {
  return imageRepository(a) === imageRepository(b);
}

/** A registry address from a Docker config (`https://index.docker.io/v1/`) as a host (`docker.io`). */
export function normalizeRegistry(address: string): string {
  const host = address.replace(/^[a-z]+:\/\//i, '').split('/')[0] ?? '';
  const lower = host.toLowerCase();
  if (
    lower === 'index.docker.io' ||
    lower === 'registry-1.docker.io' ||
    lower === 'registry.hub.docker.com'
  ) {
    return 'docker.io';
  }
  return lower;
}
