/**
 * `npm run bench -- <name>` / `npm run bench -- all`: runs benchmarks, prints one JSON line per figure
 * and appends it to bench/results/<date>.jsonl. Never part of `npm test`.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Benchmark } from './lib/benchmark.js';
import { report } from './lib/result.js';
import { BENCHMARKS } from './benchmarks/index.js';
import { writeReport } from './report.js';

const NEEDS: Record<Benchmark['needs'][number], { env: string; what: string }> = {
  docker: { env: 'DOCKER_HOST', what: 'a Docker engine with local/busybox (npm run images)' },
  mariadb: { env: 'SVC_TEST_SQL_A_DATASOURCE', what: 'MariaDB' },
  postgres: { env: 'SVC_TEST_SQL_B_DATASOURCE', what: 'PostgreSQL' },
  sshd: { env: 'SVC_TEST_SSHD', what: 'OpenSSH server and its test account' },
};

async function main(args: string[]): Promise<number> {
  const names = args.filter((arg) => !arg.startsWith('--'));
  if (names.length === 0) {
    process.stderr.write(`usage: npm run bench -- <${BENCHMARKS.map((b) => b.name).join('|')}|all>\n`);
    return 2;
  }
  const chosen = names.includes('all') ? BENCHMARKS : BENCHMARKS.filter((b) => names.includes(b.name));
  const unknown = names.filter((n) => n !== 'all' && !BENCHMARKS.some((b) => b.name === n));
  if (unknown.length > 0) {
    process.stderr.write(
      `unknown benchmark ${unknown.join(', ')}; known: ${BENCHMARKS.map((b) => b.name).join(', ')}\n`,
    );
    return 2;
  }
  const ctx = {
    node: process.execPath,
    svcMain: fileURLToPath(new URL('../dist/bundle/main.js', import.meta.url)),
    flags: args.filter((arg) => arg.startsWith('--')),
  };
  let failed = 0;
  for (const benchmark of chosen) {
    const missing = benchmark.needs.filter((need) => !process.env[NEEDS[need].env]);
    if (missing.length > 0) {
      process.stderr.write(
        `${benchmark.name}: needs ${missing.map((m) => `${NEEDS[m].what} (${NEEDS[m].env})`).join(', ')}; start them with: source <(.ci/services.sh start)\n`,
      );
      failed++;
      continue;
    }
    process.stderr.write(`${benchmark.name}: running…\n`);
    try {
      for (const result of await benchmark.run(ctx)) report(result);
    } catch (error) {
      failed++;
      process.stderr.write(
        `${benchmark.name}: failed: ${error instanceof Error ? error.message : String(error)}\n`,
      );
    }
  }
  return failed === 0 ? 0 : 1;
}

// Benchmarks measure the built command, as users run it (also where they start svc processes).
execFileSync('npm', ['run', '--silent', 'build'], { stdio: 'inherit' });
process.env.SVC_RUN_BUILT = 'true';
process.exitCode = await main(process.argv.slice(2));
// docs/performance.md always shows the latest figures of every benchmark.
writeReport();
