import { randomUUID } from 'node:crypto';
import type { Build } from '../../core/build.js';
import { comesFromFork } from '../../core/fork.js';
import type { Repo } from '../../core/repo.js';
import type { Stage } from '../../core/stage.js';
import { parseManifest, type Pipeline } from '../../pipeline/index.js';
import { jobClaims, type JobFacts } from './claims.js';
import { signJwt } from './jwt.js';
import { CLOCK_LEEWAY, type OidcKeyring } from './keyring.js';

/** A token signed for one `id_tokens` entry of one step: the runner puts `data` in variable `name`. */
export interface IssuedToken {
  readonly step: string;
  readonly name: string;
  readonly data: string;
}

/** What the issuer needs. */
export interface IssuerOptions {
  readonly keyring: OidcKeyring;
  /** The issuer URL (`iss`): SVC_SERVER_PROTO://SVC_SERVER_HOST, read when a token is made. */
  issuer(): string;
  /** SVC_OIDC_TOKEN_LIFETIME in milliseconds: no token lives longer. */
  readonly maxLifetime: number;
  /** Epoch milliseconds; tests pass a fake clock. */
  readonly now?: (() => number) | undefined;
}

/**
 * Signs the OpenID Connect tokens a stage's steps ask for (`id_tokens:`), when a runner takes the
 * stage: the signing key never leaves the server, and a runner gets only its stage's tokens.
 */
export class IdTokenIssuer {
  readonly #options: IssuerOptions;

  constructor(options: IssuerOptions) {
    this.#options = options;
  }

  /**
   * One token per step and `id_tokens` entry of the stage's pipeline in the build's file; none for a
   * fork's pull request unless the repository allows it (Repo.forkIdTokens), none when the file does
   * not read (the runner reports why). A token lives as long as the repository's build timeout,
   * at most SVC_OIDC_TOKEN_LIFETIME, and never beyond the publication of its key.
   */
  async forStage(repo: Repo, build: Build, stage: Pick<Stage, 'id' | 'name'>): Promise<IssuedToken[]> {
    const fork = comesFromFork(build, repo.slug);
    if (fork && !repo.forkIdTokens) return [];
    const pipeline = pipelineOf(build.config, stage.name);
    const requests = [...(pipeline?.services ?? []), ...(pipeline?.steps ?? [])].flatMap((step) =>
      step.idTokens.map((request) => ({ step: step.name, ...request })),
    );
    if (requests.length === 0) return [];
    const { key, privateKey } = await this.#options.keyring.active();
    const now = (this.#options.now ?? Date.now)();
    const lifetime = Math.min(repo.timeout * 60_000, this.#options.maxLifetime);
    const expires = Math.min(now + lifetime, key.expires - CLOCK_LEEWAY);
    const issuer = this.#options.issuer();
    return requests.map((request) => {
      const job: JobFacts = { repo, build, stage, step: request.step, fork };
      const claims = jobClaims(job, {
        issuer,
        audience: request.audience,
        issuedAt: Math.floor(now / 1000),
        expires: Math.floor(expires / 1000),
        jti: randomUUID(),
      });
      return { step: request.step, name: request.env, data: signJwt(claims, key.kid, privateKey) };
    });
  }
}

/** The pipeline named `name` in the build's file; undefined when there is none. */
function pipelineOf(config: string, name: string): Pipeline | undefined {
  return parseManifest(config).manifest.documents.find(
    (document): document is Pipeline => document.kind === 'pipeline' && document.name === name,
  );
}
