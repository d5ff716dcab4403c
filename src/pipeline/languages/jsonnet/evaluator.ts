import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigLanguageError, type LanguageLimits, type LanguageRequest } from '../types.js';
import { jsonnetErrorOf } from './errors.js';
import { extVarsOf } from './ext-vars.js';
import { gatherFiles, type ImportLimits } from './files.js';

export interface JsonnetLimits extends Pick<LanguageLimits, 'timeoutMs'> {
  readonly imports: ImportLimits;
  /** Jsonnet's own bound on nested calls; Drone uses 500. */
  readonly maxStack: number;
}

/** The child script next to this module: child.ts when svc runs from src/, child.js from dist/. */
const CHILD = fileURLToPath(
  new URL(`./child${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url),
);

/**
 * Jsonnet pipeline files, evaluated by the reference C++ library (@hanazuki/node-jsonnet) in a
 * child process per evaluation (~0.3 s, most of it starting Node and loading Jsonnet's standard
 * library), which is killed at the time limit. The child sees a private folder holding only the
 * program and the repository files it imports (see files.ts).
 */
export class JsonnetEvaluator {
  readonly #limits: JsonnetLimits;

  constructor(limits: JsonnetLimits) {
    this.#limits = limits;
  }

  /** Whether the optional native library was built when svc was installed (it needs cmake and g++). */
  static available(): boolean {
    try {
      createRequire(import.meta.url).resolve('@hanazuki/node-jsonnet');
      return true;
    } catch {
      return false;
    }
  }

  /** The documents the program produces: a top-level array is a stream of documents, as in Drone. */
  async evaluate(request: LanguageRequest): Promise<unknown[]> {
    const files = await gatherFiles(request, this.#limits.imports);
    const folder = await mkdtemp(join(tmpdir(), 'svc-jsonnet-'));
    // The repository's files under repo/, the search path; the program alone in a folder of its
    // own, so that its imports fall through to the search path: the root, as Drone resolves them.
    const entry = join(folder, ENTRY_FOLDER, posix.basename(request.path));
    try {
      for (const [path, text] of files) await writeInto(join(folder, 'repo', path), text);
      await writeInto(entry, request.source);
      const answer = await this.#run(folder, entry, request);
      if (!answer.ok) {
        const message = answer.message
          .split(entry)
          .join(request.path)
          .split(`${join(folder, 'repo')}/`)
          .join('');
        throw jsonnetErrorOf(message, request.path);
      }
      const value = JSON.parse(answer.json) as unknown;
      return Array.isArray(value) ? (value as unknown[]) : [value];
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  }

  #run(folder: string, entry: string, request: LanguageRequest): Promise<ChildAnswer> {
    const input = JSON.stringify({
      file: entry,
      searchPath: join(folder, 'repo'),
      extVars: extVarsOf(request.facts, request.input),
      maxStack: this.#limits.maxStack,
    });
    const { timeoutMs } = this.#limits;
    return new Promise((resolve, reject) => {
      // No environment: nothing of the server's settings reaches the program's process.
      const child = spawn(process.execPath, [CHILD], { cwd: folder, env: {}, stdio: 'pipe' });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
      child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
      child.stdin.on('error', () => undefined);
      child.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        if (signal === 'SIGKILL') {
          reject(new ConfigLanguageError(request.path, `evaluation ran longer than ${timeoutMs} ms`));
          return;
        }
        const text = Buffer.concat(out).toString('utf8');
        if (code === 0 && text !== '') resolve(JSON.parse(text) as ChildAnswer);
        else {
          const why = Buffer.concat(err).toString('utf8').trim().split('\n').slice(-3).join(' ');
          reject(
            new ConfigLanguageError(request.path, `the Jsonnet evaluator failed: ${why || `exit ${code}`}`),
          );
        }
      });
      child.stdin.end(input);
    });
  }
}

const ENTRY_FOLDER = '.svc-program';

async function writeInto(file: string, text: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, text, { mode: 0o600 });
}

type ChildAnswer = { ok: true; json: string } | { ok: false; message: string };
