import type { Logger } from 'pino';
import type { Build } from '../../core/build.js';
import type { BuildListener } from '../../core/events.js';
import { dayOf, type BuildFacts } from '../../core/insights.js';
import { isDone, isFailed } from '../../core/status.js';
import type { Store } from '../../core/store.js';

export interface InsightRollupDeps {
  store: Pick<Store, 'stages' | 'testReports' | 'insights'>;
  logger: Logger;
}

/**
 * Adds each build to its repository's insight rollups as it finishes (docs/insights.md): its
 * duration and time in the queue, its steps, its stages' time by runner kind, its failing and flaky
 * tests. A build is counted once (the store keeps which), whatever the number of updates that say
 * it is done; a rollup that fails is logged, never the build's problem.
 */
export class InsightRollup implements BuildListener {
  constructor(private readonly deps: InsightRollupDeps) {}

  async buildUpdated(change: { build: Build }): Promise<void> {
    const { build } = change;
    if (!isDone(build.status)) return;
    try {
      await this.deps.store.insights.record(build.id, await this.factsOf(build));
    } catch (error) {
      this.deps.logger.warn({ err: error, build: build.id }, 'build insights: the build was not counted');
    }
  }

  async factsOf(build: Build): Promise<BuildFacts> {
    const stages = await this.deps.store.stages.listWithSteps(build.id);
    const ran = (item: { started: number; stopped: number }) =>
      item.started > 0 && item.stopped >= item.started;
    const notable = await this.deps.store.testReports.notable(build.id, build.created);
    return {
      repoId: build.repoId,
      day: dayOf(build.finished > 0 ? build.finished : build.updated),
      succeeded: build.status === 'success',
      durationMs: build.started > 0 && build.finished >= build.started ? build.finished - build.started : 0,
      queueMs: build.started > 0 && build.started >= build.created ? build.started - build.created : 0,
      steps: stages.flatMap((stage) =>
        stage.steps.filter(ran).map((step) => ({
          name: step.name,
          durationMs: step.stopped - step.started,
          failed: isFailed(step.status),
        })),
      ),
      // A stage that never reached a runner (skipped after a failure) used none.
      stages: stages
        .filter((stage) => ran(stage) && stage.machine !== '')
        .map((stage) => ({ kind: stage.type || 'docker', busyMs: stage.stopped - stage.started })),
      failedTests: notable.filter((test) => test.failed).map((test) => test.caseId),
      flakyTests: [...new Set(notable.filter((test) => test.flaky).map((test) => test.caseId))],
    };
  }
}
