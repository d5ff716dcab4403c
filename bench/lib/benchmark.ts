import type { BenchResult } from './result.js';

/** What every benchmark gets: how to run svc as users do (the built command on Node 24). */
export interface BenchContext {
  /** The Node 24 binary that runs svc. */
  readonly node: string;
  /** dist/bundle/main.js: the command as users run it. */
  readonly svcMain: string;
  /** Options given after the names (`npm run bench -- soak --long`), for the benchmarks that take any. */
  readonly flags: readonly string[];
}

/** A named benchmark; `run` measures svc and its baseline in the same run and returns the figures. */
export interface Benchmark {
  readonly name: string;
  /** Services it needs (checked before it runs, with a clear message when missing). */
  readonly needs: readonly ('docker' | 'mariadb' | 'postgres' | 'sshd')[];
  run(ctx: BenchContext): Promise<BenchResult[]>;
}
