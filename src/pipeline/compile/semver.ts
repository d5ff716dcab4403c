const SEMVER =
  /^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*)(?:\.(?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*))*))?(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$/;

/**
 * `DRONE_SEMVER*` for a tag, as Drone sets them: the version without a leading `v` and its parts, or
 * `DRONE_SEMVER_ERROR` when the tag is not a semantic version.
 */
export function semverEnviron(tag: string): Record<string, string> {
  const match = SEMVER.exec(tag);
  if (match === null) {
    return { DRONE_SEMVER_ERROR: `"${tag}" is not a semantic version (MAJOR.MINOR.PATCH)` };
  }
  const [, major = '', minor = '', patch = '', prerelease = '', build = ''] = match;
  const short = `${major}.${minor}.${patch}`;
  const version = `${short}${prerelease === '' ? '' : `-${prerelease}`}${build === '' ? '' : `+${build}`}`;
  return {
    DRONE_SEMVER: version,
    DRONE_SEMVER_SHORT: short,
    DRONE_SEMVER_MAJOR: major,
    DRONE_SEMVER_MINOR: minor,
    DRONE_SEMVER_PATCH: patch,
    DRONE_SEMVER_PRERELEASE: prerelease,
    DRONE_SEMVER_BUILD: build,
  };
}
