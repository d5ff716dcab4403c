import type { FastifyInstance } from 'fastify';
import type { Readable } from 'node:stream';
import { z } from 'zod';
import { InvalidInputError, NotFoundError } from '../../../core/errors.js';
import type { Store } from '../../../core/store.js';
import type { ArtifactService } from '../../artifacts/service.js';
import type { TestRecorder } from '../../tests/recorder.js';
import { runningStage } from './running-stage.js';
import { sweptAsItFlows } from '../../../platform/dead-buffers.js';

/** The content type of an artifact upload: a tar of workspace paths. */
export const ARTIFACT_CONTENT_TYPE = 'application/x-tar';

export interface ArtifactRouteDeps {
  store: Pick<Store, 'stages' | 'steps' | 'builds' | 'repos'>;
  artifacts: Pick<ArtifactService, 'upload' | 'uploadReports' | 'list' | 'tarZst'>;
  /** Reads the test reports of an upload; without it reports are kept as files only. */
  tests?: Pick<TestRecorder, 'record'>;
}

const uploadQuery = z.object({
  step: z.string().min(1).max(100),
  attempt: z.coerce.number().int().min(1).max(100).default(1),
  reports_only: z.enum(['true', 'false']).default('false'),
  expire_in: z.coerce.number().int().min(0).default(0),
  junit: z
    .string()
    .default('[]')
    .transform((text, ctx) => {
      try {
        return z.array(z.string().min(1).max(500)).max(50).parse(JSON.parse(text));
      } catch {
        ctx.addIssue({ code: 'custom', message: 'expected a JSON list of globs' });
        return z.NEVER;
      }
    }),
});

/**
 * The runner protocol's artifacts (docs/artifacts.md), for a stage the runner holds and runs:
 * - `PUT /rpc/v2/stage/{id}/artifacts/{name}?step=…&attempt=…&expire_in=…&junit=[…]&reports_only=…` with a tar
 *   of workspace paths as the body, streamed → 201 `{files, size, tests?}`; the server makes it a
 *   zip, and reads the test reports among its files (`tests`: their counts and problems).
 * - `GET /rpc/v2/stage/{id}/artifacts/from/{stage}` → 200 the artifacts of the build's stage named
 *   so, as one tar.zst with entries `w/<path>` (`artifacts: from:`); 204 when it has none.
 */
export function artifactRoutes(app: FastifyInstance, deps: ArtifactRouteDeps): void {
  app.get('/stage/:id/artifacts/from/:stage', async (request, reply) => {
    const { build } = await runningStage(request, deps);
    const name = (request.params as { stage: string }).stage;
    const stage = (await deps.store.stages.list(build.id)).find((s) => s.name === name);
    if (stage === undefined) throw new NotFoundError(`stage "${name}" of build ${build.number}`);
    const artifacts = (await deps.artifacts.list(build.id)).filter((a) => a.stageId === stage.id);
    if (artifacts.length === 0) return reply.code(204).send();
    return reply
      .code(200)
      .type('application/zstd')
      .send(sweptAsItFlows(deps.artifacts.tarZst(artifacts, 'w/')));
  });

  void app.register((streamed, _options, done) => {
    streamed.addContentTypeParser(ARTIFACT_CONTENT_TYPE, (_request, payload, parsed) =>
      parsed(null, payload),
    );
    streamed.put('/stage/:id/artifacts/:name', async (request, reply) => {
      const { stage, build, repo } = await runningStage(request, deps);
      if (request.headers['content-type'] !== ARTIFACT_CONTENT_TYPE)
        throw new InvalidInputError(`the artifact: expected Content-Type ${ARTIFACT_CONTENT_TYPE}`);
      const parsed = uploadQuery.safeParse(request.query);
      if (!parsed.success)
        throw new InvalidInputError(
          `${parsed.error.issues[0]?.path.join('.') ?? 'query'}: ${parsed.error.issues[0]?.message ?? ''}`,
        );
      const step = (await deps.store.steps.list(stage.id)).find((s) => s.name === parsed.data.step);
      if (step === undefined) throw new NotFoundError(`step "${parsed.data.step}" of stage ${stage.id}`);
      const source = { repoId: repo.id, buildId: build.id, stageId: stage.id, stepId: step.id };
      const meta = {
        name: (request.params as { name: string }).name,
        expireIn: parsed.data.expire_in,
        junit: parsed.data.junit,
      };
      const body = sweptAsItFlows(request.body as Readable);
      const artifact =
        parsed.data.reports_only === 'true'
          ? await deps.artifacts.uploadReports(source, meta, body)
          : await deps.artifacts.upload(source, meta, body);
      // A failed step's reports, when it wrote none: nothing kept.
      if (artifact === undefined) return reply.code(201).send({ files: 0, size: 0 });
      const tests =
        deps.tests === undefined || artifact.junit.length === 0
          ? undefined
          : await deps.tests.record(source, parsed.data.attempt, artifact);
      return reply.code(201).send({ files: artifact.files, size: artifact.size, ...(tests && { tests }) });
    });
    done();
  });
}
