import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** Resident memory of a process, in MiB, from /proc: all of it (VmRSS) or its own part (RssAnon). */
export function residentMiB(pid: number, field: 'VmRSS' | 'RssAnon' = 'VmRSS'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = Number(new RegExp(`^${field}:\\s+(\\d+)\\s+kB$`, 'm').exec(status)?.[1]);
  if (!Number.isFinite(kib)) throw new Error(`no ${field} for process ${pid}`);
  return kib / 1024;
}

/**
 * Resident memory split as /proc shows it, in MiB: `anon` is the process's own (heap, stacks,
 * malloc); `file` is mapped files — mostly the pages of the 120 MB node binary (and native
 * addons) that ran, shared with every other Node process on the machine.
 */
export function residentParts(pid: number): { anon: number; file: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string): number =>
    Number(new RegExp(`^${field}:\\s+(\\d+)\\s+kB$`, 'm').exec(status)?.[1]);
  return { anon: kib('RssAnon') / 1024, file: kib('RssFile') / 1024 };
}

/** Samples resident memory `samples` times, `every` ms apart, and returns the median: RSS jitters. */
export async function settledMiB(
  pid: number,
  field: 'VmRSS' | 'RssAnon' = 'VmRSS',
  samples = 5,
  every = 200,
): Promise<number> {
  const values: number[] = [];
  for (let i = 0; i < samples; i++) {
    values.push(residentMiB(pid, field));
    await new Promise((resolve) => setTimeout(resolve, every));
  }
  values.sort((a, b) => a - b);
  return values[Math.floor(values.length / 2)] ?? Number.NaN;
}

/**
 * The physical limit: a bare Node process on the same runtime. With `holdRequests`, an HTTP server
 * that holds every request open without answering — what 1,000 long-polls cost at the least.
 * Prints its port on stdout once listening.
 */
export function startBareNode(holdRequests: boolean): Promise<{ child: ChildProcess; port: number }> {
  const script = holdRequests
    ? "const held=[];require('node:http').createServer((q,s)=>{held.push(s)}).listen(0,'127.0.0.1',function(){console.log(this.address().port)})"
    : 'setInterval(()=>{},1000);console.log(0)';
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.stdout?.once('data', (chunk: Buffer) => resolve({ child, port: Number(chunk.toString().trim()) }));
  });
}
