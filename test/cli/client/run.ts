/* Test support: the `svc` API client run in-process against a harness, its output captured. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clientCommand } from '../../../src/cli/client.js';
import type { Harness } from '../../api/harness.js';

export interface ClientRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** A client bound to a server and a token: `svc('build', 'ls', 'octocat/app')`. */
export type Svc = (...args: string[]) => Promise<ClientRun>;

export function clientFor(
  h: Pick<Harness, 'url'>,
  token: string,
  cwd = mkdtempSync(join(tmpdir(), 'svc-client-')),
): Svc {
  return async (command = '', ...args) => {
    let stdout = '';
    let stderr = '';
    const io = { stdout: (t: string) => (stdout += t), stderr: (t: string) => (stderr += t), cwd };
    const code = await clientCommand(command, args, { SVC_SERVER: h.url, SVC_TOKEN: token }, io);
    return { code, stdout, stderr };
  };
}

/** The JSON a `--format json` run printed. */
export function jsonOf<T>(run: ClientRun): T {
  if (run.code !== 0) throw new Error(`svc exited ${run.code}: ${run.stderr}`);
  return JSON.parse(run.stdout) as T;
}
