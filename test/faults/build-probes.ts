/*
 * What the database fault tests share: a build whose one step prints numbered lines for a while,
 * a count of the lines its stored log lost or holds twice, and timed probes of the API.
 */
import { randomBytes } from 'node:crypto';
import { call } from '../api/client.js';
import { HostE2E, REPO, type HostBuild, type HostE2EOptions } from '../e2e/host-e2e.js';
import { startRunner, waitFor, type SvcProcess } from '../e2e/system.js';
import { workPipeline } from './pipelines.js';

/**
 * One stage, no clone (the steps need only the runner and the engine): `lines` numbered lines,
 * `pause` seconds apart, so that the step is still writing its log while the fault lasts.
 */
export function countingPipeline(lines: number, pause: number): string {
  return workPipeline([`for i in $(seq 1 ${lines}); do echo "line $i"; sleep ${pause}; done`]);
}

/**
 * How many of `<prefix>1` … `<prefix><lines>` (default `line 1` …) the log lacks, and how many extra
 * copies it holds.
 */
export function lineCounts(
  log: readonly string[],
  lines: number,
  prefix = 'line ',
): { lost: number; duplicated: number } {
  const numbered = new RegExp(`^${prefix}\\d+$`);
  const seen = new Map<string, number>();
  for (const line of log) {
    const text = line.replace(/\r?\n$/, '');
    if (numbered.test(text)) seen.set(text, (seen.get(text) ?? 0) + 1);
  }
  let lost = 0;
  let duplicated = 0;
  for (let i = 1; i <= lines; i++) {
    const count = seen.get(`${prefix}${i}`) ?? 0;
    if (count === 0) lost++;
    else duplicated += count - 1;
  }
  return { lost, duplicated };
}

/** One timed answer of the server. */
export interface Probe {
  readonly path: string;
  readonly status: number;
  /** The error body's `code`, when the answer is one. */
  readonly code: string | undefined;
  readonly message: string | undefined;
  readonly ms: number;
}

/** A GitHub double, `svc server` on `database` and a Docker runner, with the fake repository. */
export class FaultFrame {
  private constructor(
    readonly e2e: HostE2E,
    readonly runner: SvcProcess,
  ) {}

  static async start(runnerName: string, database: HostE2EOptions['database']): Promise<FaultFrame> {
    const e2e = await HostE2E.start(
      'octocat',
      {},
      {
        repository: {
          url: 'https://git.invalid/octocat/app.git',
          commit: () => randomBytes(20).toString('hex'),
        },
        database,
      },
    );
    return new FaultFrame(e2e, startRunner(e2e.port, runnerName, [], { SVC_RUNNER_CAPACITY: '1' }));
  }

  /** Pushes the counting pipeline and waits until its step printed `line <after>`. */
  async startBuild(lines: number, pause: number, after: number): Promise<HostBuild> {
    await this.e2e.push({ '.drone.yml': countingPipeline(lines, pause) }, 'a build through a fault');
    const running = await this.e2e.build(
      1,
      (b) => b.stages?.[0]?.steps?.some((s) => s.name === 'work' && s.status === 'running') === true,
    );
    await this.e2e.follow(running, 'work', `line ${after}`);
    return running;
  }

  /** GET (or POST with `body`) `path` with the user's token, timed. */
  async probe(path: string, body?: unknown): Promise<Probe> {
    const started = Date.now();
    try {
      const answer = await call({ url: this.e2e.url() }, path, {
        token: this.e2e.token,
        ...(body === undefined ? {} : { method: 'POST', body }),
      });
      const json = answer.json as { code?: unknown; message?: unknown } | undefined;
      return {
        path,
        status: answer.status,
        code: typeof json?.code === 'string' ? json.code : undefined,
        message: typeof json?.message === 'string' ? json.message : answer.text.trim(),
        ms: Date.now() - started,
      };
    } catch (error) {
      // No answer at all (the server is gone): status 0, which every test refuses.
      return {
        path,
        status: 0,
        code: undefined,
        message: (error as Error).message,
        ms: Date.now() - started,
      };
    }
  }

  /** A write through the API: creates a secret with a fresh name. */
  write(): Promise<Probe> {
    const name = `probe_${randomBytes(4).toString('hex')}`;
    return this.probe(`/api/repos/${REPO}/secrets`, { name, data: 'x' });
  }

  /** A read through the API: build 1. */
  read(): Promise<Probe> {
    return this.probe(`/api/repos/${REPO}/builds/1`);
  }

  /** Probes with `probe` until it answers 200; milliseconds from `since` to that answer. */
  async recovered(probe: () => Promise<Probe>, since: number): Promise<number> {
    let last: Probe | undefined;
    await waitFor(
      'a successful answer',
      async () => {
        last = await probe();
        return last.status === 200 ? true : undefined;
      },
      60_000,
    ).catch((error: unknown) => {
      // Say why: the last answer, and whether the server is still there and what it logged last.
      const { child } = this.e2e.server;
      const tail = this.e2e.server.log().split('\n').slice(-30).join('\n');
      throw new Error(
        `${(error as Error).message}; last answer ${last?.status} ${last?.message}; server exit ${child.exitCode ?? child.signalCode ?? 'none'}; its log ends:\n${tail}`,
      );
    });
    return Date.now() - since;
  }

  /** Waits for build 1 to end; its stored `work` log with the lost and duplicated line counts. */
  async finished(lines: number): Promise<{ build: HostBuild; lost: number; duplicated: number }> {
    const build = await this.e2e.build(1);
    return { build, ...lineCounts(await this.e2e.log(build, 'work'), lines) };
  }

  /**
   * What the server's log says of the requests it answered: how many failed for want of the
   * database (503, 507), on the runner protocol and on the API, and how many failed otherwise (500).
   */
  answered(): { rpc: number; api: number; internal: number } {
    const entries = this.e2e.server
      .log()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { msg?: string; url?: string });
    const unavailable = entries.filter(
      (e) => e.msg === 'database unavailable' || e.msg === 'database out of disk space',
    );
    return {
      rpc: unavailable.filter((e) => e.url?.startsWith('/rpc/') === true).length,
      api: unavailable.filter((e) => e.url?.startsWith('/api/') === true).length,
      internal: entries.filter((e) => e.msg === 'request failed').length,
    };
  }

  async stop(): Promise<void> {
    await this.runner.kill();
    await this.e2e.stop();
  }
}

/** Calls `probe` every `everyMs` until `until` resolves; every answer it got. */
export async function probeWhile(
  until: Promise<unknown>,
  everyMs: number,
  probe: () => Promise<Probe[]>,
): Promise<Probe[]> {
  let over = false;
  const end = (): void => {
    over = true;
  };
  until.then(end, end);
  const answers: Probe[] = [];
  while (!over) {
    answers.push(...(await probe()));
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  return answers;
}
