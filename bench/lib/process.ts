import { spawn } from 'node:child_process';

/** Runs a command to completion and returns how long it took (ms); rejects on a non-zero exit. */
export function timeCommand(
  command: string,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve(performance.now() - started);
      else reject(new Error(`${command} ${args.join(' ')} exited ${code}: ${stderr.slice(-2000)}`));
    });
  });
}

/**
 * Runs `a` and `b` alternately `runs` times each (a, b, a, b, …), after one warm-up of each, so that
 * both see the same machine noise; returns both lists of samples.
 */
export async function interleave(
  runs: number,
  a: () => Promise<number>,
  b: () => Promise<number>,
): Promise<{ a: number[]; b: number[] }> {
  await a();
  await b();
  const samples = { a: [] as number[], b: [] as number[] };
  for (let i = 0; i < runs; i++) {
    samples.a.push(await a());
    samples.b.push(await b());
  }
  return samples;
}
