/*
 * Images as the kubelet handles them: references parsed and normalised with the grammar of
 * github.com/distribution/reference (`alpine:3` is reported as `docker.io/library/alpine:3`, an untagged
 * name gets `:latest`), the pull policy, and registry credentials from the pod's imagePullSecrets
 * (`kubernetes.io/dockerconfigjson` and `kubernetes.io/dockercfg`) matched by registry host.
 */
import type { RegistryAuth } from '../../../src/engines/docker/api/types.js';
import type { Secret } from './types.js';

export type ImageName =
  | { ok: true; domain: string; path: string; tag?: string; digest?: string; normalized: string }
  | { ok: false; reason: string };

const DOMAIN_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const DOMAIN = `(?:${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*|\\[[a-fA-F0-9:]+\\])(?::[0-9]+)?`;
const PATH_COMPONENT = '[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*';
const TAG = '[\\w][\\w.-]{0,127}';
const DIGEST = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][0-9a-fA-F]{32,}';
const REFERENCE = new RegExp(
  `^((?:${DOMAIN}/)?${PATH_COMPONENT}(?:/${PATH_COMPONENT})*)(?::(${TAG}))?(?:@(${DIGEST}))?$`,
);

/** Parses an image reference as ParseNormalizedNamed + the kubelet's default tag. */
export function parseImage(image: string): ImageName {
  if (/^[a-f0-9]{64}$/.test(image)) {
    return {
      ok: false,
      reason: `invalid repository name (${image}), cannot specify 64-byte hexadecimal strings`,
    };
  }
  const match = REFERENCE.exec(image);
  if (match === null) {
    const lower = REFERENCE.exec(image.toLowerCase());
    return {
      ok: false,
      reason:
        lower === null
          ? 'invalid reference format'
          : 'invalid reference format: repository name must be lowercase',
    };
  }
  const [, name = '', tag, digest] = match;
  if (name.length > 255) return { ok: false, reason: 'repository name must not be more than 255 characters' };
  const slash = name.indexOf('/');
  const first = name.slice(0, slash);
  let domain = 'docker.io';
  let path = name;
  if (
    slash >= 0 &&
    (first.includes('.') || first.includes(':') || first === 'localhost' || first !== first.toLowerCase())
  ) {
    domain = first === 'index.docker.io' ? 'docker.io' : first;
    path = name.slice(slash + 1);
  }
  if (domain === 'docker.io' && !path.includes('/')) path = `library/${path}`;
  const effectiveTag = tag ?? (digest === undefined ? 'latest' : undefined);
  const normalized = `${domain}/${path}${effectiveTag === undefined ? '' : `:${effectiveTag}`}${digest === undefined ? '' : `@${digest}`}`;
  return {
    ok: true,
    domain,
    path,
    normalized,
    ...(effectiveTag === undefined ? {} : { tag: effectiveTag }),
    ...(digest === undefined ? {} : { digest }),
  };
}

/** The kubelet's waiting message for a reference it cannot parse (reason InvalidImageName). */
export function invalidImageMessage(image: string, reason: string): string {
  return `Failed to apply default image tag "${image}": couldn't parse image reference "${image}": ${reason}`;
}

/** `docker-pullable://name@digest` for an image pulled by digest, else `docker://sha256:…`, as dockershim did. */
export function imageId(details: { Id: string; RepoDigests: string[] | null }, name: ImageName): string {
  const digests = details.RepoDigests ?? [];
  if (name.ok) {
    const familiar = name.path.startsWith('library/') ? name.path.slice(8) : name.path;
    const wanted = [
      name.domain === 'docker.io' ? familiar : `${name.domain}/${name.path}`,
      `${name.domain}/${name.path}`,
    ];
    const digest = digests.find((d) => wanted.includes(d.slice(0, d.indexOf('@'))));
    if (digest !== undefined) return `docker-pullable://${digest}`;
  }
  return `docker://${details.Id}`;
}

/** Registry hosts Docker Hub is known by in docker config files. */
const DOCKER_HUB = new Set([
  'docker.io',
  'index.docker.io',
  'registry-1.docker.io',
  'registry.hub.docker.com',
]);

function registryHost(key: string): string {
  const host = key.replace(/^[a-z]+:\/\//, '').split('/')[0] ?? '';
  return DOCKER_HUB.has(host) ? 'docker.io' : host;
}

export interface Credential {
  secret: string;
  auth: RegistryAuth;
}

/**
 * The credentials for `domain` from the named pull secrets, in order. Entries give either `auth`
 * (base64 `user:password`) or `username` and `password`. Unreadable secrets are skipped, as the
 * kubelet does (it only logs them).
 */
export function credentialsFor(domain: string, secrets: Secret[]): Credential[] {
  const found: Credential[] = [];
  for (const secret of secrets) {
    const name = secret.metadata.name ?? '';
    let auths: Record<string, { auth?: string; username?: string; password?: string }> = {};
    try {
      if (secret.type === 'kubernetes.io/dockerconfigjson') {
        const text = Buffer.from(secret.data?.['.dockerconfigjson'] ?? '', 'base64').toString('utf8');
        auths = (JSON.parse(text) as { auths?: typeof auths }).auths ?? {};
      } else if (secret.type === 'kubernetes.io/dockercfg') {
        auths = JSON.parse(
          Buffer.from(secret.data?.['.dockercfg'] ?? '', 'base64').toString('utf8'),
        ) as typeof auths;
      }
    } catch {
      continue;
    }
    for (const [key, entry] of Object.entries(auths)) {
      if (registryHost(key) !== domain) continue;
      let { username = '', password = '' } = entry;
      if (entry.auth !== undefined && entry.auth !== '') {
        const decoded = Buffer.from(entry.auth, 'base64').toString('utf8');
        const colon = decoded.indexOf(':');
        username = decoded.slice(0, colon);
        password = decoded.slice(colon + 1);
      }
      found.push({ secret: name, auth: { username, password, serveraddress: key } });
    }
  }
  return found;
}
