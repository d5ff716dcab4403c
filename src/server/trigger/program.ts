import type { NewBuild } from '../../core/build.js';
import { InvalidInputError } from '../../core/errors.js';
import type { Repo } from '../../core/repo.js';
import type { ScmProvider } from '../../core/scm.js';
import type { User } from '../../core/user.js';
import { languageFacts, type PipelineLanguages } from '../../pipeline/languages/index.js';
import { scmTokenOf } from '../auth/scm-token.js';

/** The pipeline file as YAML, or why a Jsonnet or Starlark program could not produce it. */
export type ProgramResult = { ok: true; text: string } | { ok: false; error: string };

/**
 * Runs a `.jsonnet` or `.star` pipeline file (SVC_TMPLJSON_ENABLED / SVC_TMPLSCRIPT_ENABLED) to
 * the YAML it stands for; YAML files pass through. The program reads other files of the repository
 * at the build's commit with the owner's token, as the pipeline file itself was read. Its errors
 * (file, line, column) become the error build's message; a provider that fails while the program
 * imports fails the hook, as a failed read of the pipeline file does, so it can be redelivered.
 */
export async function runProgram(
  deps: { languages?: PipelineLanguages; provider: Pick<ScmProvider, 'fileContents'> },
  repo: Repo,
  owner: User,
  build: NewBuild,
  file: { path: string; text: string },
): Promise<ProgramResult> {
  const { languages, provider } = deps;
  if (languages === undefined) return { ok: true, text: file.text };
  const ref = { namespace: repo.namespace, name: repo.name };
  const token = scmTokenOf(owner);
  try {
    const text = await languages.toYaml({
      path: file.path,
      source: file.text,
      facts: languageFacts(build, repo),
      read: (path) => provider.fileContents(token, ref, path, build.after),
    });
    return { ok: true, text: text ?? file.text };
  } catch (error) {
    if (error instanceof InvalidInputError) return { ok: false, error: error.message };
    throw error;
  }
}
