import type { NewBuild } from '../../core/build.js';
import type { Repo } from '../../core/repo.js';
import type { Template, TemplateStore } from '../../core/template.js';
import { languageFacts, languageOf } from '../../pipeline/languages/index.js';
import { TemplateError, type TemplateRenderer } from '../../pipeline/templates/index.js';

/** What the trigger renders templates with: the renderer, and the store it loads them from. */
export interface TriggerTemplates {
  readonly renderer: TemplateRenderer;
  readonly store: Pick<TemplateStore, 'findName' | 'bindNamespace'>;
}

/** The file with its templates rendered, or why it cannot be (the error build's message). */
export type TemplatesResult = { ok: true; text: string } | { ok: false; error: string };

/**
 * Renders the `kind: template` documents of a YAML pipeline file from the templates of the
 * repository's own namespace — never another's — before the plugins and the parser see it, as
 * Drone's template converter runs before its remote converter. A Jsonnet or Starlark file is
 * left alone, as in Drone. A template that is missing or fails makes an error build that names
 * it; a database that fails fails the hook, so that it can be delivered again.
 */
export async function renderTemplates(
  templates: TriggerTemplates | undefined,
  repo: Repo,
  build: NewBuild & { number: number; created: number },
  file: { path: string; text: string },
): Promise<TemplatesResult> {
  if (templates === undefined || languageOf(file.path) !== undefined) return { ok: true, text: file.text };
  try {
    const text = await templates.renderer.render({
      path: file.path,
      text: file.text,
      facts: languageFacts(build, repo),
      extras: {
        buildNumber: build.number,
        buildTrigger: build.trigger,
        buildParent: build.parent,
        buildCreated: build.created,
        repoId: repo.id,
        repoUserId: repo.userId,
        repoScm: repo.scm,
        repoTimeout: repo.timeout,
        repoCounter: repo.counter,
      },
      load: async (name) => (await ownTemplate(templates.store, repo, name))?.data,
      source: `namespace ${repo.namespace}`,
    });
    return { ok: true, text: text ?? file.text };
  } catch (error) {
    if (error instanceof TemplateError) return { ok: false, error: error.message };
    throw error;
  }
}

/**
 * The repository's namespace's template of that name — its namespace by the provider's id, not only
 * by name, as organization secrets: a namespace deleted and registered again by someone else does
 * not get its templates. One not yet bound (added before its namespace was known) is bound to this
 * repository's namespace on first use.
 */
async function ownTemplate(
  store: Pick<TemplateStore, 'findName' | 'bindNamespace'>,
  repo: Pick<Repo, 'namespace' | 'namespaceUid'>,
  name: string,
): Promise<Template | undefined> {
  const template = await store.findName(repo.namespace, name);
  if (template === undefined) return undefined;
  if (template.namespaceUid === repo.namespaceUid) return template;
  if (template.namespaceUid === '' && (await store.bindNamespace(template.id, repo.namespaceUid)))
    return template;
  return undefined;
}
