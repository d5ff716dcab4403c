import { InvalidInputError } from '../../core/errors.js';
import { documentsToYaml } from './documents.js';
import type { LanguageRequest } from './types.js';

export type LanguageName = 'jsonnet' | 'starlark';

/** What a configuration language needs from its evaluator. */
export interface LanguageEvaluator {
  evaluate(request: LanguageRequest): Promise<unknown[]>;
}

/** The configuration language of a pipeline file, by its extension (as Drone chooses). */
export function languageOf(path: string): LanguageName | undefined {
  if (path.endsWith('.jsonnet')) return 'jsonnet';
  if (path.endsWith('.star') || path.endsWith('.starlark') || path.endsWith('.script')) return 'starlark';
  return undefined;
}

const SETTING: Record<LanguageName, string> = {
  jsonnet: 'SVC_TMPLJSON_ENABLED',
  starlark: 'SVC_TMPLSCRIPT_ENABLED',
};

const TITLE: Record<LanguageName, string> = { jsonnet: 'Jsonnet', starlark: 'Starlark' };

/**
 * Turns a Jsonnet or Starlark pipeline file into the YAML documents it stands for; other files
 * pass through unchanged. A language that is not enabled is an error naming the setting, rather
 * than a confusing YAML error about a program.
 */
export class PipelineLanguages {
  readonly #evaluators: Partial<Record<LanguageName, LanguageEvaluator>>;

  constructor(evaluators: Partial<Record<LanguageName, LanguageEvaluator>>) {
    this.#evaluators = evaluators;
  }

  /** The YAML text, or undefined when the file is not written in a configuration language. */
  async toYaml(request: LanguageRequest): Promise<string | undefined> {
    const language = languageOf(request.path);
    if (language === undefined) return undefined;
    const evaluator = this.#evaluators[language];
    if (evaluator === undefined) {
      throw new InvalidInputError(
        `${request.path} is a ${TITLE[language]} file, and ${TITLE[language]} pipeline files are not enabled here (${SETTING[language]}=true)`,
      );
    }
    const documents = await evaluator.evaluate(request);
    if (documents.length === 0) {
      throw new InvalidInputError(`${request.path}: the program produced no document`);
    }
    return documentsToYaml(documents);
  }
}
