/*
 * A step printing at a set rate, whatever the machine's load: steadyCommand (log-flood.ts) pauses a
 * fixed time between bursts, so its rate falls by the cost of each burst (forks of `adjtimex` and
 * `usleep`), which grows on a busy machine. This one sleeps until each burst is due instead.
 * Lines are those of log-flood.ts (100 bytes with the newline, `%07d t=<epoch µs> ` on the timed
 * ones), so that samplesIn reads them.
 */
import { PAD, READ_CLOCK, SAMPLE_PAD } from './log-flood.js';

/**
 * A shell command (busybox awk, adjtimex, usleep) printing `lines` lines at `perSecond` a second:
 * bursts of `burst` lines, the last of each carrying its print time, then a sleep until the next
 * burst is due (none when late). Free of backslashes and `$`, so that it goes through YAML and the
 * pipeline's substitution as is.
 */
export function pacedCommand(lines: number, perSecond: number, burst: number): string {
  const body = [
    'if (n % K == 0) {',
    READ_CLOCK,
    'print sprintf("%07d t=%d%06d", n, s, u), Q; fflush();',
    'if (n == K) t0 = t - K * 1000000 / R;',
    'd = int(t0 + n * 1000000 / R - t); if (d > 0) system("usleep " d)',
    '} else print sprintf("%07d", n), P',
  ].join(' ');
  return `awk -v K=${burst} -v R=${perSecond} -v P=${PAD} -v Q=${SAMPLE_PAD} 'BEGIN { for (n = 1; n <= ${lines}; n++) { ${body} } }'`;
}
