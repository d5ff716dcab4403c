import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's times (USER_HZ: 100 on every Linux svc runs on). */
const TICKS = 100;

/** CPU time (utime + stime) a process has used so far, in seconds, from /proc; 0 when it is gone. */
export function cpuSeconds(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    // The command name in parentheses may hold spaces: fields are counted after its closing ") ".
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) / TICKS;
  } catch {
    return 0;
  }
}

/**
 * CPU time the whole machine has spent busy so far (all cores, anything but idle and iowait), in
 * seconds, and how many cores it has: over a window, busy / (seconds × cores) tells whether the
 * machine was saturated.
 */
export function machineBusy(): { busy: number; cores: number } {
  const lines = readFileSync('/proc/stat', 'utf8').split('\n');
  const total = (lines[0] ?? '').trim().split(/\s+/).slice(1, 9).map(Number);
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = total;
  const cores = lines.filter((line) => /^cpu\d/.test(line)).length;
  return { busy: (user + nice + system + irq + softirq + steal) / TICKS, cores };
}
