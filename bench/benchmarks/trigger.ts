/**
 * `trigger` (issue 35): the time from a push webhook to its build's stages queued, for a 50-pipeline
 * file that uses svc's path filters and a matrix, against the same work written without them.
 *  - svc's side: 50 pipeline documents, each with `trigger: paths` (all matching the pushed change,
 *    so every pipeline is kept and the provider's compare call is made and counted), one of them a
 *    2×3 `matrix:` — 55 stages.
 *  - the baseline: the same 55 stages written out as plain pipelines, no paths, no matrix.
 * Measured against `svc server` as users run it, GitHub played by its double: a commit, then the
 * webhook; svc answers the webhook once the build and its stages are stored (queued). The stages
 * name a runner label no runner has, so nothing runs them. Interleaved, after a warm-up.
 *
 * Two figures: pushes that leave the pipeline file as it was (the common case: svc's trigger keeps
 * the readings of recent files), and pushes that change it every time (a comment line), which
 * read everything afresh.
 */
import type { Benchmark } from '../lib/benchmark.js';
import { interleave } from '../lib/process.js';
import { timeComparison } from '../lib/result.js';
import { startSvcSystem } from '../lib/svc-system.js';

const RUNS = 20;
const PIPELINES = 50;

const step = `steps:
- name: test
  image: local/busybox
  commands: [echo \${DRONE_COMMIT_SHA:0:8}]`;

/** One pipeline document; `extra` is the lines svc's side adds (paths, matrix). */
const pipeline = (name: string, extra: string) =>
  `kind: pipeline
type: docker
name: ${name}
clone: {disable: true}
node: {pool: nobody-runs-this}
${extra}${step}
`;

/** The file with path filters on every pipeline and a 2×3 matrix on the first. */
function withFeatures(): string {
  const docs = Array.from({ length: PIPELINES }, (_, i) => {
    const paths = `trigger:\n  paths:\n    include: [src/**, 'svc${i}/**']\n    exclude: [docs/**]\n`;
    const matrix = i === 0 ? 'matrix:\n  GO: ["1.22", "1.23"]\n  DB: [mysql, postgres, sqlite]\n' : '';
    return pipeline(`p${i}`, `${paths}${matrix}`);
  });
  return docs.join('---\n');
}

/** The same 55 stages, written out. */
function plain(): string {
  const combos = ['1.22', '1.23'].flatMap((go) =>
    ['mysql', 'postgres', 'sqlite'].map((db) => `p0 (GO=${go}, DB=${db})`),
  );
  const names = [...combos, ...Array.from({ length: PIPELINES - 1 }, (_, i) => `p${i + 1}`)];
  return names.map((name) => pipeline(JSON.stringify(name), '')).join('---\n');
}

export const triggerBenchmark: Benchmark = {
  name: 'trigger',
  // startSvcSystem starts a Docker runner too (it takes none of these stages).
  needs: ['docker'],
  async run() {
    const system = await startSvcSystem({ githubRateLimit: 1_000_000 });
    try {
      const files = { features: withFeatures(), plain: plain() };
      let round = 0;
      const compareCalls = () => system.github.requests().filter((r) => r.url.includes('/compare/')).length;
      let compares = 0;
      const once = (which: keyof typeof files, changing: boolean) => async () => {
        round += 1;
        const file = changing ? `# round ${round}\n${files[which]}` : files[which];
        system.github.commit(
          system.repo,
          'main',
          { '.drone.yml': file, 'src/main.go': `// ${round}\n` },
          `round ${round}`,
        );
        const before = compareCalls();
        const started = performance.now();
        const status = await system.github.push(system.repo, 'main', system.hookUrl);
        const took = performance.now() - started;
        if (status !== 200) throw new Error(`the webhook was answered ${status}`);
        if (which === 'features') compares += compareCalls() - before;
        return took;
      };
      const same = await interleave(RUNS, once('features', false), once('plain', false));
      const sameCompares = compares;
      compares = 0;
      const changed = await interleave(RUNS, once('features', true), once('plain', true));
      const stages = await stageCount(system);
      const notes = (calls: number) =>
        `${stages} stages a build; ${calls} compare calls in ${RUNS + 1} pushes (counted in svc's time); target ratio ≤ 1.2`;
      return [
        timeComparison(
          {
            name: 'trigger',
            metric:
              'webhook to queued stages, 50 pipelines with paths and a matrix vs written out, file unchanged',
            notes: notes(sameCompares),
          },
          same.a,
          same.b,
        ),
        timeComparison(
          {
            name: 'trigger',
            metric:
              'webhook to queued stages, 50 pipelines with paths and a matrix vs written out, file changed each push',
            notes: notes(compares),
          },
          changed.a,
          changed.b,
        ),
      ];
    } finally {
      await system.close();
    }
  },
};

/** The stages of the newest build (both files make the same number). */
async function stageCount(system: Awaited<ReturnType<typeof startSvcSystem>>): Promise<number> {
  const answer = await fetch(`${system.url}/api/repos/${system.repo}/builds?per_page=1`, {
    headers: { authorization: `Bearer ${system.token}` },
  });
  const [newest] = (await answer.json()) as { number: number }[];
  const build = await fetch(`${system.url}/api/repos/${system.repo}/builds/${newest?.number ?? 0}`, {
    headers: { authorization: `Bearer ${system.token}` },
  });
  return ((await build.json()) as { stages?: unknown[] }).stages?.length ?? 0;
}
