/**
 * Which Docker Engine API version svc speaks to an engine. svc's requests and the answers it reads
 * (./types.ts) are those of API 1.41 (Docker 20.10), the lowest with everything svc uses
 * (`wait?condition=next-exit`, tmpfs mounts, 101 on attach): an engine that serves 1.41 gets it, and
 * keeps answering in those shapes. Docker 29.0 stopped serving anything below 1.44 ("client version
 * 1.41 is too old"): such an engine gets its own lowest version, the closest to 1.41's shapes, where
 * every call svc makes still exists (1.42–1.44 only deprecated fields svc does not send, such as
 * CheckDuplicate on network create, which the engine then ignores and always applies).
 */
export const PREFERRED_API_VERSION = '1.41';

/** What `GET /version` says of the API (MinAPIVersion is missing on engines before API 1.25). */
export interface EngineApiVersions {
  ApiVersion?: string;
  MinAPIVersion?: string;
}

/** The version to prefix paths with (`1.44`, no `v`), or an error naming the engine and why. */
export function chooseApiVersion(engine: EngineApiVersions, where: string): string {
  const newest = engine.ApiVersion;
  if (newest === undefined || !isVersion(newest)) {
    throw new Error(
      `the Docker engine at ${where} did not say which API versions it serves (GET /version: ApiVersion ${JSON.stringify(newest ?? null)})`,
    );
  }
  if (compareVersions(newest, PREFERRED_API_VERSION) < 0) {
    throw new Error(
      `the Docker engine at ${where} serves API versions up to ${newest}; svc needs ${PREFERRED_API_VERSION} (Docker 20.10) or later: upgrade the engine`,
    );
  }
  const oldest = engine.MinAPIVersion;
  if (oldest !== undefined && isVersion(oldest) && compareVersions(oldest, PREFERRED_API_VERSION) > 0) {
    return oldest;
  }
  return PREFERRED_API_VERSION;
}

function isVersion(value: string): boolean {
  return /^\d+\.\d+$/.test(value);
}

/** Compares `major.minor` versions numerically (1.9 < 1.41). */
export function compareVersions(a: string, b: string): number {
  const [aMajor = 0, aMinor = 0] = a.split('.').map(Number);
  const [bMajor = 0, bMinor = 0] = b.split('.').map(Number);
  return aMajor - bMajor || aMinor - bMinor;
}
