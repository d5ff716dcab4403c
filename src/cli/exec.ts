import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { homedir, hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { dockerClient } from '../engines/docker/client.js';
import { DockerEngine } from '../engines/docker/engine.js';
import type { Engine } from '../core/engine.js';
import {
  compilePipeline,
  DEFAULT_RUNNER_SETTINGS,
  diagnosticText,
  buildEnviron,
  lintSubstituted,
  substitutionLookup,
  matchConditions,
  matchFacts,
  type Pipeline,
} from '../pipeline/index.js';
import { StageExecutor } from '../runner/index.js';
import { LocalCacheTransport } from '../runner/cache/local-transport.js';
import { EXEC_USAGE, parseExecArgs, type ExecArgs } from './exec/args.js';
import { localFacts, readGitFacts } from './exec/local-facts.js';
import { readLocalPipeline } from './program/local-program.js';
import { localTemplates } from './exec/templates.js';
import { TerminalReporter } from './exec/terminal-reporter.js';
import { pathsFacts } from './exec/changed-files.js';
import type { CommandIO } from './io.js';
import { readVersion } from './version.js';

type Env = Record<string, string | undefined>;

/** Owner label of every Docker resource `svc exec` creates; run ids carry the creating process's pid. */
const EXEC_OWNER = 'svc-exec';
/** The server a local run pretends to come from (DRONE_SYSTEM_*). */
const LOCAL_SYSTEM = { proto: 'http', host: 'localhost', version: readVersion() };

/** Composition root of `svc exec`: file → lint → compile → Docker or SSH engine, until done or Ctrl-C. */
export async function execCommand(args: readonly string[], env: Env, io: CommandIO): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout(EXEC_USAGE);
    return 0;
  }
  const parsed = parseExecArgs(args);
  if (typeof parsed === 'string') {
    io.stderr(`svc exec: ${parsed}\n\n${EXEC_USAGE}`);
    return 2;
  }
  const file = parsed.file ?? ['.svc.yml', '.drone.yml'].find((name) => existsSync(resolve(io.cwd, name)));
  if (file === undefined) {
    io.stderr('svc exec: no pipeline file: give one, or run where .svc.yml or .drone.yml is\n');
    return 2;
  }
  // git runs while the file is read and parsed.
  void readGitFacts(io.cwd);
  const now = Date.now();
  const pipeline = await readPipeline(resolve(io.cwd, file), file, parsed, env, io, now);
  if (pipeline === undefined) return 1;
  return runPipeline(pipeline, parsed, env, io, now);
}

/**
 * Reads the file as a build on the server does — its program run or its templates rendered, `${…}`
 * substituted with the local run's build variables, then linted — and picks the pipeline; reports
 * problems and returns undefined on failure.
 */
async function readPipeline(
  path: string,
  given: string,
  args: ExecArgs,
  env: Env,
  io: CommandIO,
  now: number,
): Promise<Pipeline | undefined> {
  const read = await readLocalPipeline(path, io.cwd, args);
  if (!read.ok) {
    io.stderr(`svc exec: ${given}: ${read.message}\n`);
    return undefined;
  }
  const rendered = read.converted
    ? { ok: true as const, text: read.text }
    : await localTemplates({ path: given, text: read.text }, args, env, io.cwd);
  if (!rendered.ok) {
    io.stderr(`svc exec: ${rendered.message}\n`);
    return undefined;
  }
  const { text } = rendered;
  // Problems in what a program or a template produced: positions in the YAML it produced.
  const shown = read.converted
    ? `${given} (as converted)`
    : text === read.text
      ? given
      : `${given} (as rendered)`;
  const { repo, build } = await localFacts(io.cwd, args, '', now);
  const variables = buildEnviron({ repo, build, system: LOCAL_SYSTEM, now });
  const linted = lintSubstituted(text, substitutionLookup(variables), { trusted: args.trusted });
  for (const d of linted.diagnostics)
    io.stderr(`${shown}:${d.line}:${d.column}: ${d.severity}: ${diagnosticText(d)}\n`);
  if (!linted.valid) return undefined;
  const pipelines = linted.manifest.documents.filter((doc): doc is Pipeline => doc.kind === 'pipeline');
  const pipeline =
    args.pipeline === undefined ? pipelines[0] : pipelines.find((p) => p.name === args.pipeline);
  if (pipeline === undefined) {
    const names = pipelines.map((p) => p.name).join(', ') || 'none';
    io.stderr(
      `svc exec: ${shown} has no pipeline${args.pipeline === undefined ? '' : ` named "${args.pipeline}"`} (pipelines: ${names})\n`,
    );
    return undefined;
  }
  if (pipeline.type !== 'docker' && pipeline.type !== 'ssh') {
    io.stderr(
      `svc exec: pipeline "${pipeline.name}" is of type ${pipeline.type}; svc exec runs docker and ssh pipelines\n`,
    );
    return undefined;
  }
  return pipeline;
}

async function runPipeline(
  pipeline: Pipeline,
  args: ExecArgs,
  env: Env,
  io: CommandIO,
  now: number,
): Promise<number> {
  const { repo, build, stage } = await localFacts(io.cwd, args, pipeline.name, now);
  const changed = await pathsFacts(pipeline, args, io);
  if (changed === 'failed') return 2;
  const facts = {
    ...matchFacts(repo, build, 'localhost'),
    ...(changed === undefined ? {} : { changedFiles: changed }),
  };
  if (!matchConditions(pipeline.trigger, facts)) {
    io.stdout(
      `pipeline "${pipeline.name}" does not run for a ${build.event} on ${build.source}${changed === undefined ? '' : ` with these changes`} (its trigger): nothing to do\n`,
    );
    return 0;
  }
  // The engine's first call (Docker: removing dead runs' leftovers) goes on while the file compiles.
  const engineReady = engineFor(pipeline, env).then(
    (engine) => ({ engine }),
    (error: unknown) => ({ error }),
  );
  const runId = `exec-${process.pid}-${randomBytes(4).toString('hex')}`;
  const compiled = await compilePipeline({
    // The working copy is the workspace: there is nothing to clone.
    pipeline: { ...pipeline, clone: { ...pipeline.clone, disable: true } },
    secretDocuments: [],
    runId,
    labels: { 'io.svc.exec': hostname() },
    repo,
    build,
    stage,
    system: LOCAL_SYSTEM,
    secrets: ({ name }) => args.secrets[name],
    netrc: undefined,
    netrcCloneOnly: false,
    runner: { ...DEFAULT_RUNNER_SETTINGS, environ: args.env },
    trusted: args.trusted,
    ...(changed === undefined ? {} : { changedFiles: changed }),
    now,
  });
  if (!compiled.ok) {
    for (const error of compiled.errors) io.stderr(`svc exec: ${error}\n`);
    return 1;
  }
  for (const warning of compiled.warnings) io.stderr(`warning: ${warning}\n`);
  const spec = compiled.spec;
  spec.workspace = { base: spec.workspace.path, path: spec.workspace.path, hostPath: io.cwd };

  const ready = await engineReady;
  if ('error' in ready) {
    io.stderr(`svc exec: ${engineFailure(pipeline, env, ready.error)}\n`);
    return 1;
  }
  const { engine } = ready;
  const reporter = new TerminalReporter(
    { write: (text) => io.stdout(text), color: process.stdout.isTTY },
    spec.steps.map((s) => s.name),
  );
  const cancel = new AbortController();
  const onInterrupt = (): void => {
    io.stderr(
      '\ncancelling: stopping the steps and removing what the run created (Ctrl-C again to quit at once)\n',
    );
    cancel.abort();
  };
  process.once('SIGINT', onInterrupt);
  try {
    const caches =
      args.cacheDir === null ? undefined : new LocalCacheTransport(execCacheDir(args.cacheDir, env, io.cwd));
    const result = await new StageExecutor({ engine }).execute(spec, {
      reporter,
      signal: cancel.signal,
      ...(caches === undefined ? {} : { caches }),
    });
    return result.status === 'success' ? 0 : 1;
  } finally {
    process.off('SIGINT', onInterrupt);
  }
}

/**
 * Where `svc exec` keeps steps' caches: --cache-dir, else a folder of this working copy's own under
 * $XDG_CACHE_HOME/svc/exec (default ~/.cache/svc/exec), so that two checkouts do not share keys.
 */
export function execCacheDir(given: string | undefined, env: Env, cwd: string): string {
  if (given !== undefined) return resolve(cwd, given);
  const base = env.XDG_CACHE_HOME || join(env.HOME || homedir(), '.cache');
  return join(base, 'svc', 'exec', createHash('sha256').update(resolve(cwd)).digest('hex').slice(0, 16));
}

/**
 * Docker pipelines run on the engine of DOCKER_HOST (leftovers of dead `svc exec`s removed first);
 * ssh pipelines on the host of their `server:` block (SVC_SSH_KNOWN_HOSTS verifies it), where the
 * working copy is copied as the workspace. The ssh engine (ssh2 and its crypto, ~30 modules and a
 * native addon) is loaded only for ssh pipelines: a docker `svc exec` starts sooner without it.
 */
async function engineFor(pipeline: Pipeline, env: Env): Promise<Engine> {
  if (pipeline.type === 'ssh') {
    const { runnerHostKeys, SshEngine, targetOf } = await import('../engines/ssh/index.js');
    return new SshEngine({
      target: targetOf,
      hostKeys: runnerHostKeys(env.SVC_SSH_KNOWN_HOSTS || undefined),
    });
  }
  const engine = new DockerEngine({
    docker: dockerClient({
      host: env.DOCKER_HOST,
      tlsVerify: env.DOCKER_TLS_VERIFY === '1',
      certPath: env.DOCKER_CERT_PATH,
    }),
    owner: EXEC_OWNER,
    streamPull: true,
  });
  await engine.removeLeftovers(otherProcessIsAlive);
  return engine;
}

/** Why the engine could not be used: where it was looked for (which setting), and what failed. */
function engineFailure(pipeline: Pipeline, env: Env, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (pipeline.type === 'ssh') return `cannot prepare the ssh engine: ${message}`;
  const host = env.DOCKER_HOST ? `${env.DOCKER_HOST} (DOCKER_HOST)` : 'the default socket';
  return `cannot use the Docker engine at ${host}: ${message}`;
}

/** Whether the `svc exec` that created a run (its pid is in the run id) still runs here. */
function otherProcessIsAlive(runId: string): boolean {
  const pid = Number(/^exec-(\d+)-/.exec(runId)?.[1]);
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
