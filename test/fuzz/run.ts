/**
 * `npm run fuzz [-- --runs N] [-- --seed S] [target…]`: every target (or the named ones) with N
 * inputs each (default 100,000) and a fresh seed unless given; prints a JSON summary with each
 * target's count, time and seed, and exits 1 with the shrunk counterexample when a property fails.
 */
import fc from 'fast-check';
import { TARGETS } from './targets/index.js';

function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  const value = at >= 0 ? Number(process.argv[at + 1]) : fallback;
  if (!Number.isSafeInteger(value) || value <= 0) throw new Error(`${name} needs a positive whole number`);
  return value;
}

const runs = option('--runs', 100_000);
const seed = option('--seed', Date.now() % 2 ** 31);
const named = process.argv
  .slice(2)
  .filter((arg, i, all) => !arg.startsWith('--') && !all[i - 1]?.startsWith('--'));
const chosen = named.length === 0 ? TARGETS : TARGETS.filter((t) => named.includes(t.name));
if (chosen.length === 0)
  throw new Error(`no target named ${named.join(', ')}; targets: ${TARGETS.map((t) => t.name).join(', ')}`);

const results = [];
let failed = false;
for (const target of chosen) {
  const started = performance.now();
  const details = await fc.check(await target.property(), { seed, numRuns: runs });
  await target.close?.();
  const seconds = (performance.now() - started) / 1000;
  results.push({
    target: target.name,
    inputs: details.numRuns,
    seconds: Number(seconds.toFixed(1)),
    perSecond: Math.round(details.numRuns / seconds),
    seed,
    failed: details.failed,
    ...(details.failed
      ? { counterexample: details.counterexample, error: String(details.errorInstance) }
      : {}),
  });
  failed ||= details.failed;
  process.stderr.write(
    `${target.name}: ${details.numRuns} inputs in ${seconds.toFixed(1)} s${details.failed ? ' — FAILED' : ''}\n`,
  );
}
process.stdout.write(`${JSON.stringify({ runs, seed, results }, null, 2)}\n`);
process.exit(failed ? 1 : 0);
