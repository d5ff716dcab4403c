import type { FastifyInstance } from 'fastify';
import { ConflictError, NotFoundError } from '../../../core/errors.js';
import type { Store } from '../../../core/store.js';
import { buildToWire, repoToWire, stageToWire, type WireDetails } from '../../../runner/client/wire/index.js';
import type { RpcDeps } from '../deps.js';
import { checkHolder } from '../../queue/holder-check.js';
import { runnerOf } from '../holder.js';
import { idParam } from '../parse.js';
import { inlineSecrets } from '../inline-secrets.js';
import { secretsForBuild } from '../secrets.js';

/** What the details route needs. */
export interface DetailsDeps {
  store: Pick<Store, 'stages' | 'steps' | 'builds' | 'repos' | 'secrets'>;
  netrcFor: RpcDeps['netrcFor'];
  system: RpcDeps['system'];
  idTokens?: RpcDeps['idTokens'];
}

/**
 * GET /rpc/v2/stage/{id} — everything a runner needs to run a stage it took: the build (its
 * pipeline file as base64 `config.data`), the repository, the stage and its steps, the secrets the
 * build may use (secrets.ts; the values its file encrypts inline, decrypted here — inline-secrets.ts —
 * come first, as in Drone, and those that cannot be decrypted are named in `secret_errors`), clone credentials (`netrc`, null when none), the OpenID
 * Connect tokens its steps ask for (`id_tokens`, svc's addition: signed now, for this stage only) and
 * the server's system facts. 409 while no runner took the stage: secrets leave the server only for
 * taken stages.
 */
export function detailsRoute(app: FastifyInstance, deps: DetailsDeps): void {
  app.get('/stage/:id', async (request): Promise<WireDetails> => {
    const id = idParam(request);
    const stage = await deps.store.stages.find(id);
    if (stage === undefined) throw new NotFoundError(`stage ${id}`);
    if (stage.machine === '')
      throw new ConflictError(`stage ${id} must be accepted before its details are given`);
    // Secrets and clone credentials go only to the runner holding the stage (when it names itself).
    checkHolder(runnerOf(request), stage);
    const build = await deps.store.builds.find(stage.buildId);
    if (build === undefined) throw new NotFoundError(`build ${stage.buildId}`);
    const repo = await deps.store.repos.find(build.repoId);
    if (repo === undefined) throw new NotFoundError(`repository ${build.repoId}`);
    const [steps, secrets, netrc, idTokens] = await Promise.all([
      deps.store.steps.list(stage.id),
      secretsForBuild(deps.store.secrets, repo, build, stage),
      deps.netrcFor(repo, build),
      deps.idTokens?.forStage(repo, build, stage) ?? [],
    ]);
    const inline = inlineSecrets(build.config, repo, build);
    const inlineNames = new Set(inline.values.map((value) => value.name));
    const { proto, host, version } = deps.system;
    return {
      build: buildToWire(build),
      repository: repoToWire(repo),
      stage: stageToWire(stage, steps),
      config: { data: Buffer.from(build.config, 'utf8').toString('base64') },
      secrets: [
        ...inline.values.map((s) => ({
          name: s.name,
          data: s.data,
          pull_request: true,
          pull_request_push: false,
        })),
        ...secrets
          .filter((s) => !inlineNames.has(s.name))
          .map((s) => ({
            name: s.name,
            data: s.data,
            pull_request: s.pullRequest,
            pull_request_push: s.pullRequestPush,
          })),
      ],
      secret_errors: inline.errors.map((e) => ({ ...e })),
      netrc: netrc === undefined ? undefined : { ...netrc },
      id_tokens: idTokens.map((token) => ({ ...token })),
      system: { proto, host, link: `${proto}://${host}`, version },
    };
  });
}
