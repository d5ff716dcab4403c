import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine, ExecSpec, ExecStep, StepExit } from '../core/engine.js';
import { posixScript } from '../pipeline/compile/script.js';
import { execStep } from '../runner/testing/spec.js';

/**
 * The Engine contract (src/core/engine.ts), run against every engine with real parts underneath:
 * output line by line, exit codes, variables and secrets, one workspace for the stage's steps,
 * the working directory, abort, detached steps, and a destroy that leaves nothing behind.
 */
export interface EngineUnderTest {
  engine: Engine;
  /** A step running POSIX shell `commands`, in the form this engine runs commands. */
  shellStep(name: string, commands: string[], fields?: Partial<ExecStep>): ExecStep;
  /** A spec of this engine's kind (its platform, what the engine reads from it), with CONTRACT_WORKSPACE. */
  spec(steps: ExecStep[]): ExecSpec;
  /** Whether a process whose command line contains `marker` still runs where the steps ran. */
  running(marker: string): Promise<boolean>;
  /** Lines the engine itself writes into a step's log (a VM's host key trusted on first use). */
  notices?: RegExp;
  /** Whether anything the run created is left (containers, folders). */
  leftovers(spec: ExecSpec): Promise<boolean>;
  close(): Promise<void>;
}

export interface EngineDriver {
  name: string;
  /** Why the suite cannot run here (the real part is missing outside CI); undefined to run it. */
  skip: boolean;
  start(): Promise<EngineUnderTest>;
}

/**
 * Whether a process whose command line contains `marker` runs on this machine: where the steps of
 * the engines under test run (local containers, a local sshd).
 */
export async function processRunning(marker: string): Promise<boolean> {
  try {
    await promisify(execFile)('pgrep', ['-f', marker]);
    return true;
  } catch {
    return false;
  }
}

/** The workspace of the contract's stages: Drone's, as the compiler gives it. */
export const CONTRACT_WORKSPACE = { base: '/drone/src', path: '' };

/**
 * A shell step in the form of the compiler's host and container steps: `sh -c <script>`, starting in
 * the workspace, which DRONE_WORKSPACE names.
 */
export function posixShellStep(name: string, commands: string[], fields: Partial<ExecStep> = {}): ExecStep {
  return execStep(name, {
    entrypoint: ['/bin/sh', '-c'],
    command: [posixScript(commands)],
    workingDir: CONTRACT_WORKSPACE.base,
    ...fields,
    envs: { DRONE_WORKSPACE: CONTRACT_WORKSPACE.base, ...fields.envs },
  });
}

export function engineContract(driver: EngineDriver): void {
  describe.skipIf(driver.skip)(`Engine contract: ${driver.name}`, () => {
    let under: EngineUnderTest;
    beforeAll(async () => {
      under = await driver.start();
    });
    afterAll(() => under?.close());

    /** Sets the spec up, runs its steps in order, destroys it; the exits and every step's lines. */
    async function stage(
      steps: ExecStep[],
    ): Promise<{ spec: ExecSpec; exits: StepExit[]; lines: Map<string, string[]> }> {
      const spec = under.spec(steps);
      const lines = new Map<string, string[]>();
      const exits: StepExit[] = [];
      await under.engine.setup(spec);
      try {
        for (const step of steps) {
          const output: string[] = [];
          lines.set(step.name, output);
          exits.push(await under.engine.run(spec, step, (line) => output.push(line)));
        }
      } finally {
        await under.engine.destroy(spec);
      }
      return { spec, exits, lines };
    }

    it('streams every output line, stdout and stderr, and gives the exit code', async () => {
      const { exits, lines } = await stage([
        under.shellStep('talk', ['echo one', 'echo two >&2', 'printf "three"']),
        under.shellStep('fail', ['exit 3']),
      ]);
      expect(exits.map((exit) => exit.exitCode)).toEqual([0, 3]);
      // Standard output in order; standard error, a stream of its own, may come before or after it.
      const talk = (lines.get('talk') ?? []).filter((line) => !(under.notices?.test(line) ?? false));
      expect(talk.filter((line) => line !== 'two')).toEqual([
        '+ echo one',
        'one',
        '+ echo two >&2',
        '+ printf "three"',
        'three',
      ]);
      expect(talk).toContain('two');
    });

    it('gives a step its variables and secrets, and one workspace to all steps, where they start', async () => {
      const { exits, lines } = await stage([
        under.shellStep('write', ['echo "$GREETING $TOKEN" > note.txt'], {
          envs: { GREETING: 'it\'s a $HOME "quoted" value' },
          secrets: [{ name: 'token', env: 'TOKEN', data: 's3cr3t', mask: true }],
        }),
        under.shellStep('read', ['cat note.txt', 'test "$(pwd)" = "$DRONE_WORKSPACE" && echo same']),
      ]);
      expect(exits.map((exit) => exit.exitCode)).toEqual([0, 0]);
      expect(lines.get('read')).toContain(`it's a $HOME "quoted" value s3cr3t`);
      expect(lines.get('read')).toContain('same');
    });

    it('stops an aborted step with its children, and rejects', async () => {
      const { marker, step, spec } = await hangingStep(under, 'svc-contract');
      try {
        const controller = new AbortController();
        const running = under.engine.run(spec, step, () => undefined, controller.signal);
        await waitUntil(() => under.running(marker));
        const started = Date.now();
        controller.abort();
        await expect(running).rejects.toMatchObject({ name: 'AbortError' });
        expect(Date.now() - started).toBeLessThan(10_000);
        // The kill is waited for before run() rejects: what may remain is the kernel's reaping.
        await waitUntil(async () => !(await under.running(marker)), 2000);
      } finally {
        await under.engine.destroy(spec);
      }
    }, 90_000);

    // An abort can land in any window of a step's start: before its process exists, while the
    // engine is still answering the start (Docker), before the step's pid is written (SSH). The
    // Docker engine's abort flake was one of these windows: run() rejected, the step ran on.
    it('leaves nothing running when the abort comes at any moment of the start', async () => {
      for (const delayMs of [0, 2, 10, 50, 200]) {
        const { marker, step, spec } = await hangingStep(under, 'svc-contract-early');
        try {
          const controller = new AbortController();
          const running = under.engine.run(spec, step, () => undefined, controller.signal);
          running.catch(() => undefined);
          await new Promise((resolve) => setTimeout(resolve, delayMs));
          controller.abort();
          await expect(running, `aborted after ${delayMs} ms`).rejects.toMatchObject({ name: 'AbortError' });
          await waitUntil(async () => !(await under.running(marker)), 2000);
          // Nor does it start late, from a request still on its way when run() rejected.
          for (let look = 0; look < 5; look++) {
            expect(await under.running(marker), `aborted after ${delayMs} ms, then started`).toBe(false);
            await new Promise((resolve) => setTimeout(resolve, 200));
          }
        } finally {
          await under.engine.destroy(spec);
        }
      }
    }, 120_000);

    it('starts a detached step without waiting for it, and destroy stops it and leaves nothing', async () => {
      const { marker, commands } = markedChild('svc-detached', '');
      const steps = [under.shellStep('service', commands, { detach: true })];
      const spec = under.spec(steps);
      await under.engine.setup(spec);
      const exit = await under.engine.run(spec, steps[0] as ExecStep, () => undefined);
      expect(exit.exitCode).toBe(0);
      await waitUntil(() => under.running(marker));
      await under.engine.destroy(spec);
      await waitUntil(async () => !(await under.running(marker)));
      expect(await under.leftovers(spec)).toBe(false);
    });
  });
}

/**
 * Commands whose step starts a child process carrying a fresh marker on its command line, and only
 * the child: the marker is put together by the step's shell, so the script's own text (which a
 * Kubernetes placeholder waiting in the step's container also carries in its arguments) lacks it.
 */
function markedChild(prefix: string, then: string): { marker: string; commands: string[] } {
  const id = randomUUID();
  return {
    marker: `${prefix}-${id}`,
    commands: [`id=${id}`, `sh -c "sleep 300; echo ${prefix}-$id" ${then}`.trim()],
  };
}

/** A stage set up with one step that hangs, its child carrying a fresh marker. */
async function hangingStep(
  under: EngineUnderTest,
  prefix: string,
): Promise<{ marker: string; step: ExecStep; spec: ExecSpec }> {
  const { marker, commands } = markedChild(prefix, '& sleep 300');
  const step = under.shellStep('hang', commands);
  const spec = under.spec([step]);
  await under.engine.setup(spec);
  return { marker, step, spec };
}

/** Polls `check` every 100 ms for at most `ms` (15 s). */
async function waitUntil(check: () => Promise<boolean>, ms = 15_000): Promise<void> {
  for (let waited = 0; waited < ms; waited += 100) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the condition did not hold within ${ms / 1000} s`);
}
