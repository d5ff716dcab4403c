import { posix } from 'node:path';
import type {
  AroundStep,
  Engine,
  ExecSpec,
  ExecStep,
  OutputSink,
  StepExit,
  StepFiles,
} from '../../core/engine.js';
import { LineSplitter } from '../lines.js';
import { SshConnection } from './connection.js';
import { hostFiles, uploadWorkingCopy } from './files.js';
import type { HostKeys } from './host-keys.js';
import type { HostPaths } from './relocate.js';
import { posixKill, posixRemoteScript, powershellRemoteScript, type RemoteScript } from './remote-script.js';
import { quote } from './shell.js';
import type { SshTarget } from './target.js';

/** What the SSH engine needs: where each stage runs, and how host keys are trusted. */
export interface SshEngineOptions {
  /** The host of a stage (Drone's `server:` block, or the VM a VM runner made for it). */
  target(spec: ExecSpec): SshTarget;
  hostKeys: Pick<HostKeys, 'check'>;
  /** Where stages' folders are made on POSIX hosts. */
  tempDir?: string;
}

/** One stage on its host. */
interface RemoteRun {
  connection: SshConnection;
  /** The stage's folder on the host: the workspace, scripts, pid files; removed at the end. */
  root: string;
  windows: boolean;
  /** Said once, at the top of the first step's log (a host key trusted on first use). */
  notices: string[];
  /** Steps still running (detached ones too), by id: their pid and cancel files, for the kill. */
  running: Map<string, { pidFile: string; cancelFile: string }>;
}

/**
 * Runs a stage's steps on a host over SSH (runner kinds R and V): one connection per stage, a fresh
 * folder for it on the host, each step's commands as an uploaded script, output streamed line by line,
 * exit codes as they are. A host has no volume to mount at the workspace's path: the workspace lives
 * in the stage's folder, and its path is rewritten there wherever a step sees it (working directory,
 * variables such as DRONE_WORKSPACE). A step's files (caches) move as tar streams over the stage's
 * connection, into and out of the same places; not yet on Windows hosts.
 */
export class SshEngine implements Engine {
  readonly movesStepFiles = true;
  readonly runsStepsAgain = true;
  readonly #options: SshEngineOptions;
  readonly #runs = new Map<string, RemoteRun>();

  constructor(options: SshEngineOptions) {
    this.#options = options;
  }

  async setup(spec: ExecSpec): Promise<void> {
    const notices: string[] = [];
    const connection = await SshConnection.open(this.#options.target(spec), this.#options.hostKeys, notices);
    const windows = spec.platform.os === 'windows';
    const root = windows
      ? `C:\\Windows\\Temp\\svc-${spec.runId}`
      : posix.join(this.#options.tempDir ?? '/tmp', `svc-${spec.runId}`);
    this.#runs.set(spec.runId, { connection, root, windows, notices, running: new Map() });
    if (windows) return;
    try {
      await connection.check(
        `umask 077 && mkdir -p ${quote(`${root}/.svc`)} ${quote(this.#local(root, spec, workspaceOf(spec)))}`,
      );
    } catch (error) {
      throw new Error(`cannot make the stage's folder ${root}: ${(error as Error).message}`);
    }
    const local = spec.workspace.hostPath;
    if (local !== undefined)
      await uploadWorkingCopy(connection, local, this.#local(root, spec, workspaceOf(spec)));
  }

  async run(
    spec: ExecSpec,
    step: ExecStep,
    output: OutputSink,
    signal?: AbortSignal,
    around?: AroundStep,
  ): Promise<StepExit> {
    const run = this.#runs.get(spec.runId);
    if (run === undefined) throw new Error(`ssh: the stage ${spec.runId} was not set up`);
    for (const notice of run.notices.splice(0)) output(notice);
    signal?.throwIfAborted();
    const files = around === undefined ? undefined : this.#filesOf(run, spec, output);
    if (around !== undefined && files !== undefined) {
      await around.before(files);
      signal?.throwIfAborted();
    }
    const script = this.#script(run, spec, step);
    const paths = this.#paths(run, step);
    const stdout = new LineSplitter(output);
    const stderr = new LineSplitter(output);
    run.running.set(step.id, paths);
    // One channel per step: the script arrives on standard input, is written into the stage's
    // folder (readable by the user only), and runs with its input at end of file. A channel costs
    // the host a session (a fork and a shell): the upload does not get one of its own.
    if (run.windows) {
      const folder = paths.script.slice(0, paths.script.lastIndexOf('\\'));
      await run.connection.check(
        `powershell -NoProfile -Command "New-Item -ItemType Directory -Force -Path '${folder}' | Out-Null; $input | Set-Content -Path '${paths.script}'"`,
        script.text,
      );
    }
    const command = run.windows ? script.command : `cat > ${quote(paths.script)} && ${script.command}`;
    const exited = run.connection
      .exec(command, {
        stdout: (chunk) => stdout.write(chunk),
        stderr: (chunk) => stderr.write(chunk),
        ...(run.windows ? {} : { stdin: script.text }),
      })
      .finally(() => {
        stdout.end();
        stderr.end();
        run.running.delete(step.id);
      });
    if (step.detach) {
      exited.catch(() => undefined);
      return { exitCode: 0, oomKilled: false };
    }
    return new Promise<StepExit>((resolve, reject) => {
      // Killed by the abort, the step also exits (143): the abort is what the caller hears of.
      let killed = false;
      const abort = () => {
        killed = true;
        void this.#kill(run, paths).finally(() => reject(aborted(signal)));
      };
      signal?.addEventListener('abort', abort, { once: true });
      exited.then(
        (exit) => {
          signal?.removeEventListener('abort', abort);
          if (killed) return;
          // A step ended by a signal exits as a shell reports it: 128 + the signal's number.
          const ended = { exitCode: exit.code ?? 128 + signalNumber(exit.signal), oomKilled: false };
          if (around === undefined || files === undefined) return resolve(ended);
          around.after(files, ended).then(() => resolve(ended), reject);
        },
        (error: unknown) => {
          signal?.removeEventListener('abort', abort);
          if (killed) return;
          reject(new Error(`step ${step.name}: ${error instanceof Error ? error.message : String(error)}`));
        },
      );
    });
  }

  async destroy(spec: ExecSpec): Promise<void> {
    const run = this.#runs.get(spec.runId);
    if (run === undefined) return;
    this.#runs.delete(spec.runId);
    try {
      await Promise.all([...run.running.values()].map((paths) => this.#kill(run, paths)));
      if (!run.windows) await run.connection.check(`rm -rf ${quote(run.root)}`);
    } catch {
      // A host that went away keeps its folder; there is nothing more to do from here.
    } finally {
      run.connection.close();
    }
  }

  /**
   * The step's files on its host; none on a Windows host (no tar there to count on yet), which the
   * step's log says, and the step runs without.
   */
  #filesOf(run: RemoteRun, spec: ExecSpec, output: OutputSink): StepFiles | undefined {
    if (run.windows) {
      output('cache: not used: a Windows host cannot move a step’s files yet');
      return undefined;
    }
    const paths: HostPaths = {
      toHost: (path) => this.#local(run.root, spec, path),
      fromHost: (path) => {
        const moved = `${run.root}${spec.workspace.base}`;
        return path === moved || path.startsWith(`${moved}/`) ? path.slice(run.root.length) : path;
      },
    };
    return hostFiles(run.connection, paths);
  }

  #kill(run: RemoteRun, paths: { pidFile: string; cancelFile: string }): Promise<void> {
    if (run.windows) return Promise.resolve();
    return run.connection.check(posixKill(paths.pidFile, paths.cancelFile)).then(
      () => undefined,
      () => undefined,
    );
  }

  #paths(run: RemoteRun, step: ExecStep) {
    const join = run.windows
      ? (...parts: string[]) => parts.join('\\')
      : (...parts: string[]) => posix.join(...parts);
    const id = step.id.replace(/[^A-Za-z0-9_.-]/g, '_');
    return {
      script: join(run.root, '.svc', `${id}.${run.windows ? 'ps1' : 'sh'}`),
      pidFile: join(run.root, '.svc', `${id}.pid`),
      cancelFile: join(run.root, '.svc', `${id}.cancel`),
    };
  }

  #script(run: RemoteRun, spec: ExecSpec, step: ExecStep): RemoteScript {
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries(step.envs)) env[name] = this.#local(run.root, spec, value);
    for (const secret of step.secrets) env[secret.env] = secret.data;
    const paths = {
      ...this.#paths(run, step),
      workingDir: this.#local(run.root, spec, step.workingDir || workspaceOf(spec)),
    };
    return run.windows ? powershellRemoteScript(step, env, paths) : posixRemoteScript(step, env, paths);
  }

  /** A path (or a variable's value) under the workspace's base, moved into the stage's folder. */
  #local(root: string, spec: ExecSpec, value: string): string {
    const base = spec.workspace.base;
    const normal = value.replace(/\/+$/, '') || '/';
    if (normal === base || normal.startsWith(`${base}/`)) return `${root}${normal}`;
    return value;
  }
}

/** Where steps start: the workspace's path, relative to its base or absolute. */
function workspaceOf(spec: ExecSpec): string {
  const { base, path } = spec.workspace;
  return path.startsWith('/') ? path : posix.join(base, path);
}

/** The rejection of an aborted step, as the executor expects it. */
function aborted(signal: AbortSignal | undefined): Error {
  const error = new Error('step aborted', { cause: signal?.reason });
  error.name = 'AbortError';
  return error;
}

const SIGNALS: Record<string, number> = { HUP: 1, INT: 2, QUIT: 3, KILL: 9, SEGV: 11, PIPE: 13, TERM: 15 };

function signalNumber(signal: string | undefined): number {
  return SIGNALS[(signal ?? '').replace(/^SIG/, '')] ?? 1;
}
