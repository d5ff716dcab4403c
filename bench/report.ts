/**
 * Writes docs/performance.md and docs/performance.svg from bench/results/*.jsonl: the latest figure of
 * every benchmark metric, side by side with its baseline and target, and bench/analysis.md (written
 * by hand: causes, profiles, what would close the gaps). Run by `npm run bench` after every run, or
 * alone with `npx tsx bench/report.ts`.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RESULTS_DIR, type BenchResult } from './lib/result.js';
import { targetOf } from './targets.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

interface Row extends BenchResult {
  date: string;
}

/**
 * The latest result of each (benchmark, metric), in the order benchmarks first appeared. A run writes
 * its benchmark's lines one after another, so a metric missing from a benchmark's last block of lines
 * is one it no longer measures (renamed or dropped), and is left out.
 */
export function latestResults(): Row[] {
  const latest = new Map<string, Row>();
  /** Per benchmark, the metrics of its last block of consecutive lines. */
  const lastBlock = new Map<string, Set<string>>();
  let previous: string | undefined;
  for (const file of readdirSync(RESULTS_DIR)
    .filter((f) => f.endsWith('.jsonl'))
    .sort()) {
    for (const line of readFileSync(join(RESULTS_DIR, file), 'utf8').split('\n')) {
      if (line.trim() === '') continue;
      const result = JSON.parse(line) as BenchResult;
      latest.set(`${result.name}\u0000${result.metric}`, { ...result, date: file.replace(/\.jsonl$/, '') });
      if (result.name !== previous) lastBlock.set(result.name, new Set());
      lastBlock.get(result.name)?.add(result.metric);
      previous = result.name;
    }
  }
  return [...latest.values()].filter((row) => lastBlock.get(row.name)?.has(row.metric) === true);
}

const fmt = (value: number | null): string => (value === null ? '—' : String(value));

function table(rows: readonly Row[]): string {
  const lines = [
    '| benchmark | metric | svc | baseline | ratio | unit | runs | p99 | target | met | measured |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    const target = targetOf(r);
    const met = target === undefined ? '' : target.met(r) ? 'yes' : '**no**';
    lines.push(
      `| ${r.name} | ${r.metric} | ${fmt(r.svc)} | ${fmt(r.baseline)} | ${fmt(r.ratio)} | ${r.unit} | ${r.runs} | ${fmt(r.p99)} | ${target?.text ?? ''} | ${met} | ${r.date} |`,
    );
  }
  return lines.join('\n');
}

const escapeXml = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** `text`, cut to `length` characters with an ellipsis when longer. */
function shorten(text: string, length: number): string {
  return text.length <= length ? text : `${text.slice(0, length - 1)}…`;
}

/** A horizontal bar chart of svc/baseline ratios (1 = as fast as the baseline), target marks in red. */
export function chart(rows: readonly Row[]): string {
  const withRatio = rows.filter((r) => r.ratio !== null && Number.isFinite(r.ratio) && r.ratio > 0);
  // A logarithmic axis: ratios run from ~1 (pipelines) to over 100 (a tail measured against Docker's
  // sub-millisecond one), and a linear axis squeezes the first into slivers.
  const max = Math.max(2, ...withRatio.map((r) => r.ratio ?? 0)) * 1.3;
  const width = 1000;
  const left = 480;
  const bar = 22;
  const height = 40 + withRatio.length * (bar + 8) + 30;
  const x = (ratio: number): number =>
    left + ((width - left - 60) * Math.log10(Math.max(ratio, 1))) / Math.log10(max);
  const ticks = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000].filter((tick) => tick <= max);
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="12">`,
    '<rect width="100%" height="100%" fill="white"/>',
    `<text x="10" y="20" font-size="14" font-weight="bold">svc / baseline (log scale, lower is better; 1 = the baseline, red mark = target)</text>`,
    ...ticks.flatMap((tick) => [
      `<line x1="${x(tick)}" y1="30" x2="${x(tick)}" y2="${height - 25}" stroke="#bbb" stroke-dasharray="4 3"/>`,
      `<text x="${x(tick) - 4}" y="${height - 10}">${tick}×</text>`,
    ]),
  ];
  withRatio.forEach((r, i) => {
    const y = 36 + i * (bar + 8);
    const ratio = r.ratio ?? 0;
    const target = targetOf(r);
    const met = target?.met(r);
    const color = met === false ? '#d9534f' : '#4a90d9';
    parts.push(
      `<text x="${left - 8}" y="${y + 15}" text-anchor="end">${escapeXml(shorten(`${r.name}: ${r.metric}`, 70))}</text>`,
      `<rect x="${left}" y="${y}" width="${Math.max(1, x(ratio) - left)}" height="${bar}" fill="${color}"/>`,
      `<text x="${x(ratio) + 4}" y="${y + 15}">${ratio}×</text>`,
    );
    const limit = /([\d.]+)× baseline/.exec(target?.text ?? '')?.[1];
    if (limit !== undefined) {
      const tx = x(Number(limit));
      parts.push(
        `<line x1="${tx}" y1="${y - 2}" x2="${tx}" y2="${y + bar + 2}" stroke="red" stroke-width="2"/>`,
      );
    }
  });
  parts.push('</svg>');
  return parts.join('\n');
}

function commands(rows: readonly Row[]): string {
  const names = [...new Set(rows.map((r) => r.name))];
  return names.map((name) => `- ${name}: \`npm run bench -- ${name}\``).join('\n');
}

/** Regenerates docs/performance.md and docs/performance.svg. */
export function writeReport(): void {
  const rows = latestResults();
  const analysis = readFileSync(join(ROOT, 'bench', 'analysis.md'), 'utf8');
  writeFileSync(join(ROOT, 'docs', 'performance.svg'), `${chart(rows)}\n`);
  const page = [
    '# Performance',
    '',
    '<!-- Generated by bench/report.ts from bench/results/*.jsonl and bench/analysis.md. Do not edit by hand. -->',
    '',
    'Every figure is measured side by side with its baseline in the same run, on a shared 2-core machine:',
    'ratios of medians of interleaved runs, not absolute times, are what to compare. The targets come from',
    'the benchmarks issue; they are measured here, never asserted in tests. All runs: `npm run bench -- all`',
    '(services: `source <(.ci/services.sh start)`, images: `npm run images`).',
    '',
    '![svc / baseline ratios](performance.svg)',
    '',
    table(rows),
    '',
    '## Reproduce each figure',
    '',
    commands(rows),
    '',
    analysis.trim(),
    '',
  ].join('\n');
  writeFileSync(join(ROOT, 'docs', 'performance.md'), page);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) writeReport();
