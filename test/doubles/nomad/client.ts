/*
 * The double's Nomad client agent: one node whose docker driver talks to the double's Docker engine.
 * It runs the allocations the scheduler places, stops those it stops, and offers the test hooks: losing
 * the node (every live allocation `lost`, its containers killed, then the node is back and the server
 * places replacements) and a driver failure under a running task.
 */
import { rm } from 'node:fs/promises';
import { AllocRunner } from './allocrunner.js';
import { instanceContainers, LABELS, removeContainer } from './docker.js';
import type { DriverOptions } from './driver.js';
import { nodeAttributes } from './env.js';
import { isAllocTerminal, type Allocation, type NodeInfo } from './model.js';
import { newEval } from './reconcile.js';
import type { Scheduler } from './scheduler.js';
import type { NomadState } from './state.js';
import { nowNs, within } from './util.js';

export const LOST = 'alloc is lost since its node is down';

export interface ClientOptions {
  state: NomadState;
  node: NodeInfo;
  region: string;
  driver: DriverOptions;
  /** This instance's data directory (alloc dirs live below it). */
  dataDir: string;
  instance: string;
  unmodelled: (what: string) => void;
}

export class ClientAgent {
  readonly runners = new Map<string, AllocRunner>();
  scheduler: Scheduler | undefined;
  private closed = false;

  constructor(private readonly options: ClientOptions) {}

  run(alloc: Allocation): void {
    if (this.closed || this.runners.has(alloc.ID)) return;
    const { state, driver, node, region, dataDir, instance, unmodelled } = this.options;
    const runner = new AllocRunner(alloc, {
      state,
      driver,
      attributes: nodeAttributes(node, region),
      dataDir,
      labels: {
        [LABELS.instance]: instance,
        [LABELS.pid]: String(process.pid),
        [LABELS.job]: alloc.JobID,
        [LABELS.alloc]: alloc.ID,
      },
      unmodelled,
      onTerminal: (terminal) => this.scheduler?.allocTerminal(terminal),
    });
    this.runners.set(alloc.ID, runner);
    void runner.start();
  }

  stop(alloc: Allocation): void {
    void this.runners
      .get(alloc.ID)
      ?.stop()
      .catch(() => undefined);
  }

  /** Every live allocation on the node becomes `lost` (containers killed); then the node is up again. */
  async loseNode(): Promise<void> {
    const { state, node } = this.options;
    const lost = [...state.allocs.values()].filter(
      (alloc) => alloc.NodeID === node.ID && !isAllocTerminal(alloc),
    );
    node.status = 'down';
    const evalIDs: string[] = [];
    state.commit(['allocs', 'evals'], (index) => {
      for (const alloc of lost) {
        Object.assign(alloc, {
          DesiredStatus: 'stop',
          DesiredDescription: LOST,
          ClientStatus: 'lost',
          ModifyIndex: index,
          AllocModifyIndex: index,
          ModifyTime: nowNs(),
        });
      }
      for (const jobID of new Set(lost.map((alloc) => `${alloc.Namespace}\u0000${alloc.JobID}`))) {
        const [namespace = '', id = ''] = jobID.split('\u0000');
        const job = state.job(namespace, id);
        if (job === undefined) continue;
        const evaluation = newEval(job, index, {
          TriggeredBy: 'node-update',
          NodeID: node.ID,
          NodeModifyIndex: index,
        });
        state.evals.set(evaluation.ID, evaluation);
        evalIDs.push(evaluation.ID);
      }
    });
    // While the node is down the node-update evaluations can place nothing: they block.
    for (const id of evalIDs) this.scheduler?.enqueue(id);
    this.scheduler?.drain();
    await Promise.all(
      lost.map((alloc) => within(this.runners.get(alloc.ID)?.lose() ?? Promise.resolve(), 60_000)),
    );
    node.status = 'ready';
    this.scheduler?.unblock();
  }

  /** Test hook: a driver failure under a running task of `allocID`. */
  async failAllocation(allocID: string, message: string): Promise<boolean> {
    return (await this.runners.get(allocID)?.fail(message)) ?? false;
  }

  /** Stops everything at once (no kill timeouts), removes the instance's containers and alloc dirs. */
  async close(): Promise<void> {
    this.closed = true;
    const runners = [...this.runners.values()];
    await Promise.all(runners.map((runner) => within(runner.lose(), 20_000)));
    const docker = this.options.driver.docker;
    const leftovers = await within(
      instanceContainers(docker, this.options.instance).catch(() => []),
      10_000,
    );
    await Promise.all(
      (leftovers ?? []).map((id) =>
        within(
          removeContainer(docker, id).catch(() => undefined),
          10_000,
        ),
      ),
    );
    await rm(this.options.dataDir, { recursive: true, force: true }).catch(() => undefined);
  }
}
