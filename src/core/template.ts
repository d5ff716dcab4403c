/**
 * A pipeline template of a namespace (Drone's templates): a `kind: template` document of a
 * repository of that namespace names it in `load:` and gives it inputs in `data:`; the server
 * renders it into pipeline documents. Its language follows its name's extension (templateLanguageOf).
 */
export interface Template {
  readonly id: number;
  /** The organization or user the template belongs to; only that namespace's repositories load it. */
  namespace: string;
  /** Unique within its namespace; a single file name (templateNameProblem). */
  name: string;
  /** The template's text. */
  data: string;
  /**
   * The provider's id of the namespace (Repo.namespaceUid), as for organization secrets: a namespace
   * deleted and registered again under its name by someone else does not get its templates. Empty
   * until known: the first build that loads the template binds it.
   */
  namespaceUid: string;
  /** Epoch milliseconds. */
  created: number;
  updated: number;
}

export type NewTemplate = Omit<Template, 'id' | 'created' | 'updated' | 'namespaceUid'> & {
  namespaceUid?: string;
};

/**
 * Persistence of templates. Namespaces and names are matched exactly (case included).
 * - `create` throws ConflictError when the namespace already holds a template of that name.
 * - `update` writes the namespace, name and data of the template with that id (moving it to
 *   another namespace is allowed), ConflictError when the target already holds that name,
 *   NotFoundError when the id is gone.
 * - `list` returns one namespace's templates by name; `listAll` every template by namespace, name.
 * - `delete` of an id that is gone does nothing.
 */
export interface TemplateStore {
  findName(namespace: string, name: string): Promise<Template | undefined>;
  list(namespace: string): Promise<Template[]>;
  listAll(): Promise<Template[]>;
  create(template: NewTemplate): Promise<Template>;
  update(template: Template): Promise<Template>;
  delete(id: number): Promise<void>;
  /**
   * Binds a template that has no namespace id yet to `namespaceUid`, in one conditional write: true
   * when this call bound it, false when it was bound already or the uid is empty.
   */
  bindNamespace(id: number, namespaceUid: string): Promise<boolean>;
}

/** The languages a template may be written in. */
export type TemplateLanguage = 'yaml' | 'jsonnet' | 'starlark';

/** What each extension means, as Drone decides it (plugin/converter/template.go). */
const EXTENSIONS: Readonly<Record<string, TemplateLanguage>> = {
  '.yml': 'yaml',
  '.yaml': 'yaml',
  '.star': 'starlark',
  '.starlark': 'starlark',
  '.script': 'starlark',
  '.jsonnet': 'jsonnet',
};

/** The extensions templates may have, for messages. */
export const TEMPLATE_EXTENSIONS_TEXT =
  '.yml or .yaml (YAML), .star, .starlark or .script (Starlark), .jsonnet (Jsonnet)';

/** Longest template name or namespace svc keeps (the column's size). */
export const MAX_TEMPLATE_NAME = 255;

/** The template's language by its name's extension; undefined when the extension means none. */
export function templateLanguageOf(name: string): TemplateLanguage | undefined {
  const dot = name.lastIndexOf('.');
  return dot < 0 ? undefined : EXTENSIONS[name.slice(dot)];
}

/**
 * Why `name` cannot name a template, or undefined when it can: a template name is one file name
 * (no `/`, `\` or control characters, so that it never leaves a folder it is looked up in) whose
 * extension says its language.
 */
export function templateNameProblem(name: string): string | undefined {
  if (name === '') return 'a template needs a name, e.g. plugin.yaml';
  if (name.length > MAX_TEMPLATE_NAME) return `at most ${MAX_TEMPLATE_NAME} characters`;
  if (/[/\\]/.test(name)) return `"${name}" is not a single file name: no / or \\ allowed`;
  if (hasControl(name)) return 'control characters are not allowed';
  if (templateLanguageOf(name) === undefined)
    return `"${name}" has no template extension; expected ${TEMPLATE_EXTENSIONS_TEXT}`;
  return undefined;
}

/** Why `namespace` cannot be a namespace of templates, or undefined when it can. */
export function templateNamespaceProblem(namespace: string): string | undefined {
  if (namespace === '') return 'a namespace is needed (an organization or a user)';
  if (namespace.length > MAX_TEMPLATE_NAME) return `at most ${MAX_TEMPLATE_NAME} characters`;
  if (/[/\\]/.test(namespace) || hasControl(namespace))
    return `"${namespace}" is not a namespace: no /, \\ or control characters allowed`;
  return undefined;
}

function hasControl(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}
