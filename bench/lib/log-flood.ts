/*
 * Benchmark support for log throughput: a step that floods its output with numbered lines of a known
 * content, some of which carry the time they were printed, and the checks of what svc stored.
 *
 * Print times: busybox has no `date +%N`, but its `adjtimex` applet prints the kernel's wall clock
 * to the microsecond (`time.tv_sec`, `time.tv_usec`; reading it needs no privilege). Containers
 * share the host's kernel, so these are the same clock as the host's `performance.timeOrigin +
 * performance.now()`: a sampled line's latency is its arrival time minus the time it carries. awk
 * asks `adjtimex` for every `every`-th line (a fork each, the same cost in svc and in the baseline).
 */

/** The length of every line, without its newline (with it: 100 bytes). */
export const LINE_CHARS = 99;
/** What follows the number on a plain line. */
export const PAD = 'x'.repeat(LINE_CHARS - 8);
/** What follows the time on a sampled line: `NNNNNNN t=<16 digits> ` is 27 characters. */
export const SAMPLE_PAD = 'y'.repeat(LINE_CHARS - 27);

/** awk: the wall clock into `s` (seconds) and `u` (µs), and `t` (epoch µs), from busybox adjtimex. */
export const READ_CLOCK = [
  's = 0; u = 0;',
  'while (("adjtimex" | getline l) > 0) {',
  'if (l ~ /tv_sec/) { split(l, a, ":"); s = a[2] + 0 }',
  'else if (l ~ /tv_usec/) { split(l, a, ":"); u = a[2] + 0 } }',
  'close("adjtimex"); t = s * 1000000 + u;',
].join(' ');

/** awk: prints line `n` (the variable), sampled when `n % K == 0`. */
const PRINT_LINE = [
  'if (n % K == 0) {',
  READ_CLOCK,
  'print sprintf("%07d t=%d%06d", n, s, u), Q',
  '} else print sprintf("%07d", n), P',
].join(' ');

/**
 * A shell command (busybox seq, awk, adjtimex) printing `lines` lines as fast as it can: line n
 * (from 1) is `%07d` of n, a space and x's; every `every`-th line is `%07d t=<epoch µs> ` and y's
 * instead. Free of backslashes and `$`, so that it goes through YAML and the pipeline's
 * substitution as is.
 */
export function floodCommand(lines: number, every: number): string {
  return `seq 1 ${lines} | awk -v K=${every} -v P=${PAD} -v Q=${SAMPLE_PAD} '{ n = NR; ${PRINT_LINE} }'`;
}

/**
 * The same lines at a steady pace: `burst` lines, then a pause of `pauseMs` (busybox usleep), and
 * so on; the last line of each burst carries its print time.
 */
export function steadyCommand(lines: number, burst: number, pauseMs: number): string {
  const pause = `system("usleep ${pauseMs * 1000}")`;
  return `awk -v K=${burst} -v P=${PAD} -v Q=${SAMPLE_PAD} 'BEGIN { for (n = 1; n <= ${lines}; n++) { ${PRINT_LINE}; if (n % K == 0) { fflush(); ${pause} } } }'`;
}

/** What the stored log holds compared with what the step printed. */
export interface LogCheck {
  /** Lines of the flood found, each counted once. */
  stored: number;
  /** Flood lines missing from the log. */
  lost: number;
  /** Flood lines stored more than once. */
  duplicates: number;
  /** Lines that are neither a flood line nor a trace line (`+ command`), or out of order. */
  wrong: number;
}

const PLAIN = new RegExp(`^(\\d{7}) ${PAD}$`);
const SAMPLED = new RegExp(`^(\\d{7}) t=\\d{16} ${SAMPLE_PAD}$`);

/** Checks a stored log (in position order) against a flood of `lines` lines. */
export function checkLog(log: readonly { pos: number; out: string }[], lines: number): LogCheck {
  const seen = new Uint8Array(lines + 1);
  let stored = 0;
  let duplicates = 0;
  let wrong = 0;
  let last = 0;
  let lastPos = -1;
  for (const { pos, out } of log) {
    if (pos <= lastPos) wrong++;
    lastPos = pos;
    const match = PLAIN.exec(out) ?? SAMPLED.exec(out);
    if (match === null) {
      if (!out.startsWith('+ ')) wrong++;
      continue;
    }
    const n = Number(match[1]);
    if (n < 1 || n > lines) {
      wrong++;
      continue;
    }
    if (seen[n] === 1) {
      duplicates++;
      continue;
    }
    if (n < last) wrong++;
    last = n;
    seen[n] = 1;
    stored++;
  }
  return { stored, lost: lines - stored, duplicates, wrong };
}

/** One sampled line: its number and when it was printed (epoch ms, µs precision). */
export interface Sample {
  line: number;
  printed: number;
}

const SAMPLE_IN_TEXT = /(\d{7}) t=(\d{16}) /g;

/** The sampled lines in `text` (any text holding whole lines: raw output, SSE events, JSON). */
export function samplesIn(text: string): Sample[] {
  const found: Sample[] = [];
  for (const match of text.matchAll(SAMPLE_IN_TEXT)) {
    found.push({ line: Number(match[1]), printed: Number(match[2]) / 1000 });
  }
  return found;
}

/** The host's wall clock in epoch milliseconds, sub-millisecond precise (comparable to `Sample.printed`). */
export function wallClock(): number {
  return performance.timeOrigin + performance.now();
}
