import { InvalidInputError } from '../../core/errors.js';
import { templateLanguageOf, templateNameProblem } from '../../core/template.js';
import type { Position } from '../diagnostics.js';
import { documentsToYaml } from '../languages/documents.js';
import type { LanguageEvaluator } from '../languages/languages.js';
import { ConfigLanguageError, type LanguageFacts } from '../languages/types.js';
import type { TemplateDocument } from '../types.js';
import { mayHoldTemplates, splitTemplates, TemplateDocumentError } from './documents.js';
import { goBuild, goRepo, type TemplateExtras } from './go-facts.js';
import { GoTemplateError, renderGoTemplate } from './gotemplate/index.js';
import { TEMPLATE_LIMITS, type TemplateLimits } from './limits.js';

/** The languages of templates that are programs. */
type ProgramLanguage = 'jsonnet' | 'starlark';

/** A template's text by name, from where the file's templates come from; undefined when there is none. */
export type TemplateLoader = (name: string) => Promise<string | undefined>;

/** The file to render, and what its templates see. */
export interface TemplateRequest {
  /** Path of the pipeline file, as messages name it (`.drone.yml`). */
  readonly path: string;
  readonly text: string;
  /** Drone's build and repository facts (Jsonnet's ext vars, Starlark's ctx, YAML's .build/.repo). */
  readonly facts: LanguageFacts;
  /** What a YAML template's `.build` and `.repo` hold besides the facts. */
  readonly extras?: TemplateExtras;
  /** Reads a template; only ever called with a valid template name (a single file name). */
  readonly load: TemplateLoader;
  /** Where templates come from, for messages: `namespace octocat`, `folder ci/templates`. */
  readonly source: string;
}

/** A template that is missing, cannot be read or fails to render: the message names it. */
export class TemplateError extends InvalidInputError {}

/**
 * Renders the `kind: template` documents of a YAML pipeline file, as Drone's template converter
 * does, each in its place (other documents are kept as written): `load:` names a template of the
 * repository's namespace, whose extension says its language; `data:` is its input.
 * - YAML (`.yml`, `.yaml`): Go's text/template with drone/funcmap, over `.input` (the data),
 *   `.build` and `.repo` (drone-go's structs);
 * - Jsonnet (`.jsonnet`): `std.extVar("input.<key>")`, and the `build.*`/`repo.*` variables;
 * - Starlark (`.star`, `.starlark`, `.script`): `main(ctx)` with `ctx.input`, `ctx.build`, `ctx.repo`.
 * Templates neither import other files nor load other templates; TemplateLimits bound them.
 */
export class TemplateRenderer {
  readonly #evaluators: Partial<Record<ProgramLanguage, LanguageEvaluator>>;
  readonly #unavailable: Partial<Record<ProgramLanguage, string>>;
  readonly #limits: TemplateLimits;
  readonly #now: () => number;

  /**
   * `evaluators`: the program languages templates may be written in; `unavailable` says why one
   * without an evaluator is missing (the setting that enables it), for the error.
   */
  constructor(deps: {
    evaluators: Partial<Record<ProgramLanguage, LanguageEvaluator>>;
    unavailable?: Partial<Record<ProgramLanguage, string>>;
    limits?: TemplateLimits;
    now?: () => number;
  }) {
    this.#evaluators = deps.evaluators;
    this.#unavailable = deps.unavailable ?? {};
    this.#limits = deps.limits ?? TEMPLATE_LIMITS;
    this.#now = deps.now ?? Date.now;
  }

  /** The file with its templates rendered, or undefined when it has none. Throws TemplateError. */
  async render(request: TemplateRequest): Promise<string | undefined> {
    let parts;
    try {
      parts = splitTemplates(request.text);
    } catch (error) {
      if (!(error instanceof TemplateDocumentError)) throw error;
      throw new TemplateError(`${request.path}:${error.at.line}:${error.at.column}: ${error.message}`);
    }
    if (parts === undefined) return undefined;
    const count = parts.filter((part) => part.kind === 'template').length;
    if (count > this.#limits.documents)
      throw new TemplateError(
        `${request.path}: ${count} kind: template documents; at most ${this.#limits.documents} are rendered in one file`,
      );
    let out = '';
    for (const part of parts) {
      if (part.kind === 'text') out += part.text;
      else {
        if (out !== '' && !out.endsWith('\n')) out += '\n';
        out += await this.#renderOne(request, part.document, part.at);
      }
      if (Buffer.byteLength(out) > this.#limits.outputBytes)
        throw new TemplateError(
          `${request.path}: its templates produce more than ${this.#limits.outputBytes} bytes (a limit of templates)`,
        );
    }
    return out;
  }

  async #renderOne(request: TemplateRequest, document: TemplateDocument, at: Position): Promise<string> {
    const name = document.load;
    const loadedAt = `(loaded at ${request.path}:${at.line})`;
    const problem = templateNameProblem(name);
    if (problem !== undefined)
      throw new TemplateError(`${request.path}:${at.line}:${at.column}: load: ${problem}`);
    const source = await request.load(name);
    if (source === undefined)
      throw new TemplateError(`template ${name} not found in ${request.source} ${loadedAt}`);
    if (Buffer.byteLength(source) > this.#limits.templateBytes)
      throw new TemplateError(
        `template ${name} is larger than ${this.#limits.templateBytes} bytes (a limit of templates) ${loadedAt}`,
      );
    let rendered: string;
    try {
      rendered = await this.#evaluate(request, document, source);
    } catch (error) {
      if (error instanceof GoTemplateError)
        throw new TemplateError(
          `template ${name}:${error.at.line}:${error.at.column}: ${error.message} ${loadedAt}`,
        );
      if (error instanceof ConfigLanguageError) {
        const where = error.line === undefined ? '' : `:${error.line}:${error.column ?? 0}`;
        throw new TemplateError(`template ${error.file}${where}: ${error.detail} ${loadedAt}`);
      }
      if (error instanceof InvalidInputError)
        throw new TemplateError(`template ${name}: ${error.message} ${loadedAt}`);
      throw error;
    }
    if (mayHoldTemplates(rendered) && hasTemplates(rendered))
      throw new TemplateError(
        `template ${name} produced a kind: template document; a template cannot load templates ${loadedAt}`,
      );
    const body = rendered.endsWith('\n') || rendered === '' ? rendered : `${rendered}\n`;
    return body.startsWith('---') ? body : `---\n${body}`;
  }

  async #evaluate(request: TemplateRequest, document: TemplateDocument, source: string): Promise<string> {
    const name = document.load;
    const language = templateLanguageOf(name);
    if (language === 'yaml') {
      const data = {
        build: goBuild(request.facts, request.extras ?? {}),
        repo: goRepo(request.facts, request.extras ?? {}),
        input: document.data,
      };
      return renderGoTemplate(name, source, data, this.#limits, this.#now);
    }
    const program = language === 'jsonnet' ? 'jsonnet' : 'starlark';
    const evaluator = this.#evaluators[program];
    if (evaluator === undefined)
      throw new InvalidInputError(
        `${program === 'jsonnet' ? 'Jsonnet' : 'Starlark'} templates are not rendered here: ${this.#unavailable[program] ?? 'svc was installed without them'}`,
      );
    const documents = await evaluator.evaluate({
      path: name,
      source,
      facts: request.facts,
      input: document.data,
      read: (path) =>
        Promise.reject(
          new ConfigLanguageError(name, `a template cannot import or load other files (${path})`),
        ),
    });
    if (documents.length === 0) throw new InvalidInputError('the program produced no document');
    return documentsToYaml(documents);
  }
}

function hasTemplates(text: string): boolean {
  try {
    return splitTemplates(text) !== undefined;
  } catch (error) {
    if (error instanceof TemplateDocumentError) return true;
    throw error;
  }
}
