import type { Build } from '../../core/build.js';
import type { Repo } from '../../core/repo.js';
import type { Stage } from '../../core/stage.js';

/** What a job's token says about the job: the build, where it runs, and whether its code is trusted. */
export interface JobFacts {
  readonly repo: Pick<Repo, 'slug' | 'uid' | 'namespace' | 'namespaceUid' | 'trusted' | 'visibility'>;
  readonly build: Pick<
    Build,
    'id' | 'number' | 'event' | 'ref' | 'after' | 'source' | 'target' | 'deployTo' | 'sender' | 'authorLogin'
  >;
  readonly stage: Pick<Stage, 'id' | 'name'>;
  /** The step's name. */
  readonly step: string;
  /** The change comes from a fork (core/fork.ts). */
  readonly fork: boolean;
}

/** The token's own facts: who signs, for whom, when (epoch seconds), and its unique id. */
export interface TokenFacts {
  readonly issuer: string;
  readonly audience: readonly string[];
  readonly issuedAt: number;
  readonly expires: number;
  readonly jti: string;
}

/** Every claim svc puts in a job's token, in the order of docs/pipelines.md. */
export const JOB_CLAIMS = [
  'iss',
  'sub',
  'aud',
  'iat',
  'nbf',
  'exp',
  'jti',
  'repository',
  'repository_id',
  'repository_owner',
  'repository_owner_id',
  'repository_visibility',
  'ref',
  'ref_type',
  'base_ref',
  'head_ref',
  'event',
  'sha',
  'build_number',
  'build_id',
  'pipeline',
  'stage_id',
  'step',
  'trusted',
  'fork',
  'deploy_target',
  'actor',
] as const;

/**
 * The claims of a job's OpenID Connect token. Names follow GitHub Actions' tokens where the meaning is
 * the same (`repository`, `repository_id`, `ref`, `ref_type`, `sha`, `actor`, and `sub`), so that
 * trust policies written for GitHub read the same; `repository_id` is the git provider's id of the
 * repository, which survives renames — the claim a cloud's trust policy should pin. `sub` is
 * `repo:<owner>/<name>:environment:<target>` for promotions and rollbacks, `…:pull_request` for pull
 * requests, otherwise `…:ref:<ref>`.
 */
export function jobClaims(job: JobFacts, token: TokenFacts): Record<(typeof JOB_CLAIMS)[number], unknown> {
  const { repo, build } = job;
  const deployment = (build.event === 'promote' || build.event === 'rollback') && build.deployTo !== '';
  const pullRequest = build.event === 'pull_request';
  const subject = deployment
    ? `environment:${build.deployTo}`
    : pullRequest
      ? 'pull_request'
      : `ref:${build.ref}`;
  return {
    iss: token.issuer,
    sub: `repo:${repo.slug}:${subject}`,
    // One audience is a string, as most verifiers expect; several are a list (RFC 7519 allows both).
    aud: token.audience.length === 1 ? token.audience[0] : [...token.audience],
    iat: token.issuedAt,
    nbf: token.issuedAt,
    exp: token.expires,
    jti: token.jti,
    repository: repo.slug,
    repository_id: repo.uid,
    repository_owner: repo.namespace,
    repository_owner_id: repo.namespaceUid,
    repository_visibility: repo.visibility,
    ref: build.ref,
    ref_type: refType(build.ref, pullRequest),
    base_ref: pullRequest ? build.target : '',
    head_ref: pullRequest ? build.source : '',
    event: build.event,
    sha: build.after,
    build_number: build.number,
    build_id: build.id,
    pipeline: job.stage.name,
    stage_id: job.stage.id,
    step: job.step,
    trusted: repo.trusted,
    fork: job.fork,
    deploy_target: build.deployTo,
    actor: build.sender !== '' ? build.sender : build.authorLogin,
  };
}

/** `branch`, `tag` or `pull_request` (a pull request's ref, `refs/pull/…` or `refs/merge-requests/…`). */
function refType(ref: string, pullRequest: boolean): string {
  if (ref.startsWith('refs/tags/')) return 'tag';
  if (pullRequest) return 'pull_request';
  return 'branch';
}
