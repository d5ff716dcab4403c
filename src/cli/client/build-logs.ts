import { numberArg, repoArg } from './args.js';
import type { Verb, VerbContext } from './command.js';
import { RequestError, UsageError } from './errors.js';
import { serverEvents } from './sse.js';
import { DONE, type WireBuild, type WireStage, type WireStep } from './wire.js';

interface LogLine {
  pos: number;
  out: string;
  time: number;
}

/** How often `--follow` looks for steps that started: a running build changes within seconds. */
const POLL_MS = 1000;

/**
 * `svc build logs <repo> <number> [stage] [step] [--follow]`: the logs of a build's steps, each under
 * a header. `--follow` streams them live: it polls the build (its steps appear as a runner starts
 * them) and follows each started step's event stream to its end, in stage and step order, until the
 * build is done. Polling rather than the build event stream keeps one code path for builds that are
 * running and ones that finished while the client was starting.
 */
export const buildLogsVerb: Verb = {
  args: '<owner/name> <number> [stage] [step]',
  summary: 'Prints the logs of a build’s steps (--follow: live, until the build ends)',
  options: { follow: { type: 'boolean', short: 'f', help: 'stream the running build’s steps live' } },
  async run(context) {
    const repo = repoArg(context.positionals[0]);
    const number = numberArg(context.positionals[1], 'the build number');
    const only = selection(context);
    const buildPath = `${repo.path}/builds/${number}`;
    const printed = new Set<string>();
    const lines: LogLine[] = [];
    for (;;) {
      const build = await context.api.get<WireBuild>(buildPath);
      for (const { stage, step } of steps(build, only)) {
        const key = `${stage.number}/${step.number}`;
        if (printed.has(key) || !started(step, build)) continue;
        printed.add(key);
        if (!context.json) context.io.stderr(`\n[${stage.name}:${step.name}] ${step.status}\n`);
        const path = `${buildPath}/logs/${stage.number}/${step.number}`;
        if (context.values.follow === true) await follow(context, `${path}/stream`, lines);
        else for (const line of await stored(context, path)) emit(context, line, lines);
      }
      if (context.values.follow !== true || DONE.has(build.status)) break;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    if (context.json) context.io.stdout(`${JSON.stringify(lines, null, 2)}\n`);
    else if (printed.size === 0) context.io.stderr('no step of this build has started\n');
  },
};

function selection(context: VerbContext): { stage?: number; step?: number } {
  const [, , stage, step] = context.positionals;
  if (step !== undefined && stage === undefined) throw new UsageError('a step needs its stage');
  return {
    ...(stage === undefined ? {} : { stage: numberArg(stage, 'the stage number') }),
    ...(step === undefined ? {} : { step: numberArg(step, 'the step number') }),
  };
}

function* steps(
  build: WireBuild,
  only: { stage?: number; step?: number },
): Generator<{ stage: WireStage; step: WireStep }> {
  const stages = [...(build.stages ?? [])].sort((a, b) => a.number - b.number);
  for (const stage of stages) {
    if (only.stage !== undefined && stage.number !== only.stage) continue;
    for (const step of [...(stage.steps ?? [])].sort((a, b) => a.number - b.number)) {
      if (only.step !== undefined && step.number !== only.step) continue;
      yield { stage, step };
    }
  }
}

/** A step with a log to show: it ran or runs (a skipped or never-started step has none). */
function started(step: WireStep, build: WireBuild): boolean {
  if (step.status === 'pending' || step.status === 'skipped') return false;
  return step.status === 'running' || DONE.has(step.status) || DONE.has(build.status);
}

async function stored(context: VerbContext, path: string): Promise<LogLine[]> {
  try {
    return (await context.api.get<LogLine[] | undefined>(path)) ?? [];
  } catch (error) {
    // A step that printed nothing (or whose log was deleted) has no log: nothing to show.
    if (error instanceof RequestError && error.status === 404) return [];
    throw error;
  }
}

async function follow(context: VerbContext, path: string, lines: LogLine[]): Promise<void> {
  const response = await context.api.stream(path);
  if (response.body === null) return;
  for await (const event of serverEvents(response.body)) {
    if (event.event === 'end') break;
    emit(context, JSON.parse(event.data) as LogLine, lines);
  }
}

function emit(context: VerbContext, line: LogLine, lines: LogLine[]): void {
  if (context.json) lines.push(line);
  else context.io.stdout(line.out.endsWith('\n') ? line.out : `${line.out}\n`);
}
