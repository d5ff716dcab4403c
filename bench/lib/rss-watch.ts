import { readFileSync, writeFileSync } from 'node:fs';

/** A process's peak resident memory over a window, in MiB. */
export interface RssPeak {
  /** VmRSS sampled every `every` ms, the largest. */
  sampled: number;
  /** VmHWM at the end, reset at the start (clear_refs 5): a peak between samples too; NaN when it could not be reset. */
  highWater: number;
  /** The larger of the two. */
  peak: number;
}

function statusKiB(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`^${field}:\\s+(\\d+)\\s+kB$`, 'm').exec(status)?.[1]);
}

/**
 * Watches the resident memory of `pids` from now until `stop`: VmRSS sampled every `every` ms, and
 * the kernel's own high-water mark (VmHWM), reset now by writing 5 to /proc/<pid>/clear_refs.
 */
export function watchRss(pids: readonly number[], every = 50): { stop(): RssPeak[] } {
  const resetOk = pids.map((pid) => {
    try {
      writeFileSync(`/proc/${pid}/clear_refs`, '5');
      return true;
    } catch {
      return false;
    }
  });
  const sampled = pids.map((pid) => statusKiB(pid, 'VmRSS'));
  const timer = setInterval(() => {
    pids.forEach((pid, i) => {
      const now = statusKiB(pid, 'VmRSS');
      if (now > (sampled[i] ?? 0)) sampled[i] = now;
    });
  }, every);
  return {
    stop() {
      clearInterval(timer);
      return pids.map((pid, i) => {
        const highWater = resetOk[i] === true ? statusKiB(pid, 'VmHWM') / 1024 : Number.NaN;
        const peak = (sampled[i] ?? 0) / 1024;
        return { sampled: peak, highWater, peak: Math.max(peak, Number.isNaN(highWater) ? 0 : highWater) };
      });
    },
  };
}
