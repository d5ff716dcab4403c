import { z } from 'zod';
import type { BuildStore } from '../../../core/build.js';
import { NotFoundError } from '../../../core/errors.js';
import { publicUrl, type ServerAddress } from '../../web/address.js';
import { RepoParams } from '../params.js';
import { REPO_READ, route, type ApiRoute } from '../route.js';
import { ccTrayXml } from './cctray.js';
import { badgeLabel, badgeSvg } from './svg.js';

/** What the badges need. */
export interface BadgeDeps {
  readonly builds: Pick<BuildStore, 'findLatest'>;
  /** SVC_SERVER_PROTO and SVC_SERVER_HOST, for the build's address in cc.xml. */
  readonly address: ServerAddress;
}

const BadgeQuery = z.object({
  ref: z.string().min(1).optional().describe('a full git ref, e.g. `refs/tags/v1.0`'),
  branch: z.string().min(1).optional().describe('a branch; wins over `ref`; default: the default branch'),
});

/**
 * Image proxies (GitHub's camo among them) keep images they may cache: a badge must be fetched
 * again each time it is shown, or it shows a status long gone.
 */
const NO_CACHE = {
  'cache-control': 'no-cache, no-store, max-age=0, must-revalidate',
  expires: 'Thu, 01 Jan 1970 00:00:00 GMT',
};

/**
 * GET /api/badges/{owner}/{name}/status.svg?branch=|ref=: the status of the newest build of the
 * branch (the default branch unless given) or ref, as an SVG badge with Drone's words (`success`,
 * `failure`, `started`, `error`, `none`). GET …/cc.xml: the newest build in the cctray format of
 * CCMenu and other build monitors. Public repositories' badges are for everyone; private ones need
 * read access, and others get 404 as for every private repository.
 */
export function badgeRoutes(deps: BadgeDeps): ApiRoute[] {
  return [
    route({
      method: 'GET',
      path: '/api/badges/:owner/:name/status.svg',
      access: REPO_READ,
      tag: 'badges',
      summary: 'The status of the newest build of a branch or ref, as an SVG badge',
      params: RepoParams,
      query: BadgeQuery,
      response: { contentType: 'image/svg+xml', description: 'the badge' },
      async handler({ repo, query, reply }) {
        const which =
          query.branch === undefined && query.ref === undefined
            ? { branch: repo.defaultBranch }
            : {
                ...(query.branch === undefined ? {} : { branch: query.branch }),
                ...(query.ref === undefined ? {} : { ref: query.ref }),
              };
        const build = await deps.builds.findLatest(repo.id, which);
        void reply
          .headers({ ...NO_CACHE, 'content-type': 'image/svg+xml; charset=utf-8' })
          .header('last-modified', new Date().toUTCString());
        return badgeSvg(badgeLabel(build?.status));
      },
    }),
    route({
      method: 'GET',
      path: '/api/badges/:owner/:name/cc.xml',
      access: REPO_READ,
      tag: 'badges',
      summary: 'The newest build in the cctray XML format (CCMenu)',
      params: RepoParams,
      response: {
        contentType: 'application/xml',
        description:
          '`<Projects><Project name activity lastBuildStatus lastBuildLabel lastBuildTime webUrl/>`',
      },
      async handler({ repo, reply }) {
        const build = await deps.builds.findLatest(repo.id, {});
        if (build === undefined) throw new NotFoundError(`a build of ${repo.slug}`);
        const webUrl = publicUrl(deps.address, `/${repo.namespace}/${repo.name}/${build.number}`);
        void reply.headers({ ...NO_CACHE, 'content-type': 'application/xml; charset=utf-8' });
        return ccTrayXml(repo, build, webUrl);
      },
    }),
  ];
}
