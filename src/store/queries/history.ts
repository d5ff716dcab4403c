import type { Kysely } from 'kysely';
import type { Build } from '../../core/build.js';
import type { BuildHistoryStore, RestoredBuild, RestoredStage } from '../../core/build-history.js';
import { InvalidInputError } from '../../core/errors.js';
import { isDone } from '../../core/status.js';
import type { Step } from '../../core/step.js';
import type { Connection, DialectAdapter } from '../dialects/adapter.js';
import type { Tables } from '../tables.js';
import { inTransaction } from '../transaction.js';
import { buildColumns } from './builds.js';
import { indexLatest } from './latest.js';
import { insertId, write } from './rows.js';
import { stageColumns } from './stages.js';
import { insertStep } from './steps.js';

/** Finished builds of another server, written as they were (see BuildHistoryStore). */
export class SqlBuildHistoryStore implements BuildHistoryStore {
  readonly #db: Kysely<Tables>;
  readonly #adapter: DialectAdapter;

  constructor(connection: Connection) {
    this.#db = connection.db;
    this.#adapter = connection.adapter;
  }

  async restore(
    build: RestoredBuild,
    stages: readonly RestoredStage[],
  ): Promise<{ build: Build; steps: Step[][] }> {
    refuseUnfinished(build, stages);
    return inTransaction(this.#db, async (trx) => {
      const newest = await trx
        .selectFrom('builds')
        .select((eb) => eb.fn.max('number').as('number'))
        .where('repo_id', '=', build.repoId)
        .executeTakeFirst();
      const id = await write(
        this.#adapter,
        () =>
          insertId(
            this.#adapter,
            trx.insertInto('builds').values({
              ...buildColumns(build),
              repo_id: build.repoId,
              number: build.number,
              created: build.created,
              updated: build.updated,
              version: 1,
            }),
          ),
        {
          conflict: `repository ${build.repoId} already has a build number ${build.number}`,
          missing: `repository ${build.repoId}`,
        },
      );
      const steps: Step[][] = [];
      for (const { stage, steps: stageSteps } of stages) {
        const stageId = await write(
          this.#adapter,
          () =>
            insertId(
              this.#adapter,
              trx.insertInto('stages').values({
                ...stageColumns(stage),
                repo_id: build.repoId,
                build_id: id,
                created: stage.created,
                updated: stage.updated,
                version: 1,
              }),
            ),
          {
            conflict: `build ${build.number} of repository ${build.repoId} has two stages number ${stage.number}`,
          },
        );
        const written: Step[] = [];
        for (const step of stageSteps)
          written.push(await insertStep(trx, this.#adapter, { ...step, stageId }));
        steps.push(written);
      }
      // An older build must not take the head of a list from a newer one already there.
      if (newest?.number === null || newest === undefined || Number(newest.number) < build.number) {
        await indexLatest(trx, { ...build, id }, build.updated, this.#adapter.product === 'MySQL');
      }
      return { build: { ...build, id, version: 1 }, steps };
    });
  }
}

function refuseUnfinished(build: RestoredBuild, stages: readonly RestoredStage[]): void {
  const what = `build ${build.number} of repository ${build.repoId}`;
  if (!isDone(build.status))
    throw new InvalidInputError(`${what} is ${build.status}: only finished builds are restored`);
  for (const { stage, steps } of stages) {
    if (!isDone(stage.status)) {
      throw new InvalidInputError(
        `stage ${stage.number} of ${what} is ${stage.status}: only finished stages are restored`,
      );
    }
    for (const step of steps) {
      if (!isDone(step.status)) {
        throw new InvalidInputError(
          `step ${step.number} of stage ${stage.number} of ${what} is ${step.status}: only finished steps are restored`,
        );
      }
    }
  }
}
