import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { dirname, relative, resolve, sep } from 'node:path';
import { InvalidInputError } from '../../core/errors.js';
import {
  languageFacts,
  languageOf,
  PipelineLanguages,
  type LanguageFacts,
} from '../../pipeline/languages/index.js';
import { JsonnetEvaluator } from '../../pipeline/languages/jsonnet/evaluator.js';
import { LANGUAGE_LIMITS } from '../../pipeline/languages/limits.js';
import { StarlarkEvaluator } from '../../pipeline/languages/starlark/evaluator.js';
import { localFacts } from '../exec/local-facts.js';
import type { ExecArgs } from '../exec/args.js';

/** A local pipeline file as YAML: as written, or as its Jsonnet or Starlark program produced it. */
export type LocalPipeline = { ok: true; text: string; converted: boolean } | { ok: false; message: string };

/**
 * Reads a pipeline file of this machine the way the server reads one of a repository: a `.jsonnet`
 * or `.star` file runs with the local run's build facts (event, branch, the working copy's commit),
 * and imports or loads other files of its git working copy (or of its folder outside one).
 * Both languages are on: a local run trusts its own files.
 */
export async function readLocalPipeline(
  path: string,
  cwd: string,
  options: Pick<ExecArgs, 'event' | 'branch'>,
): Promise<LocalPipeline> {
  let source: string;
  try {
    source = await readFile(path, 'utf8');
  } catch (error) {
    return {
      ok: false,
      message: `cannot read the file: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
    };
  }
  if (languageOf(path) === undefined) return { ok: true, text: source, converted: false };
  const root = workingCopyOf(dirname(path));
  const starlark = new StarlarkEvaluator(LANGUAGE_LIMITS.starlark);
  const languages = new PipelineLanguages({
    starlark,
    ...(JsonnetEvaluator.available() ? { jsonnet: new JsonnetEvaluator(LANGUAGE_LIMITS.jsonnet) } : {}),
  });
  try {
    const text = await languages.toYaml({
      path: relative(root, path).split(sep).join('/'),
      source,
      facts: await factsOf(cwd, options),
      read: (file) => readInside(root, file),
    });
    return { ok: true, text: text ?? source, converted: true };
  } catch (error) {
    if (error instanceof InvalidInputError) return { ok: false, message: error.message };
    throw error;
  } finally {
    await starlark.close();
  }
}

/** The top of the git working copy holding `folder`, else the folder itself. */
function workingCopyOf(folder: string): string {
  try {
    const top = execFileSync('git', ['rev-parse', '--show-toplevel'], {
      cwd: folder,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    return top.toString().trim() || folder;
  } catch {
    return folder;
  }
}

async function readInside(root: string, file: string): Promise<string | undefined> {
  const target = resolve(root, file);
  if (target !== root && !target.startsWith(root + sep)) return undefined;
  try {
    return await readFile(target, 'utf8');
  } catch {
    return undefined;
  }
}

/** The facts a local run's programs and templates see: the working copy's, as a trusted repository. */
export async function factsOf(
  cwd: string,
  options: Pick<ExecArgs, 'event' | 'branch'>,
): Promise<LanguageFacts> {
  const { repo, build } = await localFacts(cwd, options, '', Date.now());
  return languageFacts(
    { ...build, sourceRepo: '', sender: build.authorLogin },
    {
      ...repo,
      uid: '',
      configPath: '',
      active: true,
      trusted: true,
      protected: false,
      ignoreForks: false,
      ignorePullRequests: false,
    },
  );
}
