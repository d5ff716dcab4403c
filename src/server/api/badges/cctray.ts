import type { Build } from '../../../core/build.js';
import type { Repo } from '../../../core/repo.js';

/** Characters that may not appear as such in an XML attribute value. */
function attribute(value: string): string {
  return value
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&apos;');
}

/** An epoch-milliseconds time as RFC 3339 in UTC, without fractions of a second. */
function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * A repository's newest build in the cctray format CCMenu and similar monitors read:
 * `<Projects><Project name activity lastBuildStatus lastBuildLabel lastBuildTime webUrl/></Projects>`.
 * As in Drone, a build that is not done is `Building` with the last status and label `Unknown`; a done
 * build is `Sleeping` with its number and start time; `Success` and `Failure` map directly, errors,
 * kills and declines are `Exception`.
 */
export function ccTrayXml(repo: Repo, build: Build, webUrl: string): string {
  const running = build.status === 'pending' || build.status === 'running' || build.status === 'blocked';
  let lastBuildStatus = 'Unknown';
  if (build.status === 'success') lastBuildStatus = 'Success';
  else if (build.status === 'failure') lastBuildStatus = 'Failure';
  else if (build.status === 'error' || build.status === 'killed' || build.status === 'declined')
    lastBuildStatus = 'Exception';
  const fields: [string, string][] = [
    ['name', repo.slug],
    ['activity', running ? 'Building' : 'Sleeping'],
    ['lastBuildStatus', lastBuildStatus],
    ['lastBuildLabel', running ? 'Unknown' : String(build.number)],
    ['lastBuildTime', running || build.started === 0 ? '' : rfc3339(build.started)],
    ['webUrl', webUrl],
  ];
  const attributes = fields.map(([name, value]) => `${name}="${attribute(value)}"`).join(' ');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Projects><Project ${attributes}></Project></Projects>\n`;
}
