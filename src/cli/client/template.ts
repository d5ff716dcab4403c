import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { stringOption } from './args.js';
import type { Group, Verb, VerbContext } from './command.js';
import { UsageError } from './errors.js';
import { bytes, fields, show, table, when } from './output.js';

interface WireTemplate {
  namespace: string;
  name: string;
  data: string;
  created: number;
  updated: number;
}

const NAMESPACE = { type: 'string', help: 'the organization or user the template belongs to' } as const;
const NAME = {
  type: 'string',
  help: 'the template’s name; its extension is its language: .yml/.yaml, .jsonnet, .star/.starlark/.script',
} as const;
const DATA = { type: 'string', help: 'the template’s text, or @FILE to read it from a file' } as const;

/**
 * Drone's client takes the namespace, name and text as options (`--namespace`, `--name`,
 * `--data @file`) or as its positionals `[namespace] [name] [data]`: the options win, the
 * positionals fill in what they leave out, in that order.
 */
function argsOf(context: VerbContext): { namespace?: string; name?: string; data?: string } {
  const [first, second, third] = context.positionals;
  return {
    namespace: stringOption(context.values, 'namespace') ?? first,
    name: stringOption(context.values, 'name') ?? second,
    data: stringOption(context.values, 'data') ?? third,
  };
}

function needed(value: string | undefined, what: string): string {
  if (value === undefined || value === '') throw new UsageError(`missing ${what}`);
  return value;
}

const path = (namespace: string, name?: string) =>
  `/api/templates/${encodeURIComponent(namespace)}${name === undefined ? '' : `/${encodeURIComponent(name)}`}`;

/** `--data text` or `--data @file` (read relative to the working directory, as `drone` does). */
async function textOf(context: VerbContext, data: string | undefined): Promise<string> {
  const given = needed(data, 'the template’s text (--data @FILE)');
  if (!given.startsWith('@')) return given;
  const file = resolve(context.io.cwd, given.slice(1));
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(
      `--data ${given}: cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
    );
  }
}

const templateTable = (templates: readonly WireTemplate[]) =>
  templates.length === 0
    ? 'no templates\n'
    : table(
        ['NAMESPACE', 'NAME', 'SIZE', 'UPDATED'],
        templates.map((t) => [t.namespace, t.name, bytes(Buffer.byteLength(t.data)), when(t.updated)]),
      );

const templateDetails = (t: WireTemplate) =>
  `${fields([
    ['Name', t.name],
    ['Namespace', t.namespace],
    ['Created', when(t.created)],
    ['Updated', when(t.updated)],
  ])}Data:\n${t.data}${t.data.endsWith('\n') ? '' : '\n'}`;

const write = (method: 'post' | 'patch'): Verb => ({
  args: '[namespace] [name] [data] | --namespace <namespace> --name <name> --data @FILE',
  summary: method === 'post' ? 'Adds a template to a namespace' : 'Changes a template’s text',
  options: { namespace: NAMESPACE, name: NAME, data: DATA },
  async run(context) {
    const args = argsOf(context);
    const namespace = needed(args.namespace, 'the namespace (--namespace)');
    const name = needed(args.name, 'the template’s name (--name)');
    const data = await textOf(context, args.data);
    const answer =
      method === 'post'
        ? await context.api.post<WireTemplate>(path(namespace), { name, data })
        : await context.api.patch<WireTemplate>(path(namespace, name), { data });
    show(
      context,
      answer,
      (t) => `template ${t.namespace}/${t.name} ${method === 'post' ? 'added' : 'updated'}\n`,
    );
  },
});

export const templateGroup: Group = {
  name: 'template',
  summary: 'Pipeline templates of a namespace, which kind: template documents load (docs/pipelines.md).',
  verbs: {
    ls: {
      args: '[namespace] | --namespace <namespace>',
      summary: 'Lists a namespace’s templates (every namespace’s, for administrators, without one)',
      options: { namespace: NAMESPACE },
      async run(context) {
        const { namespace } = argsOf(context);
        const url = namespace === undefined || namespace === '' ? '/api/templates' : path(namespace);
        show(context, await context.api.get<WireTemplate[]>(url), templateTable);
      },
    },
    info: {
      args: '[namespace] [name] | --namespace <namespace> --name <name>',
      summary: 'Shows a template and its text',
      options: { namespace: NAMESPACE, name: NAME },
      async run(context) {
        const args = argsOf(context);
        const namespace = needed(args.namespace, 'the namespace (--namespace)');
        const name = needed(args.name, 'the template’s name (--name)');
        show(context, await context.api.get<WireTemplate>(path(namespace, name)), templateDetails);
      },
    },
    add: write('post'),
    update: write('patch'),
    rm: {
      args: '[namespace] [name] | --namespace <namespace> --name <name>',
      summary: 'Deletes a template',
      options: { namespace: NAMESPACE, name: NAME },
      async run(context) {
        const args = argsOf(context);
        const namespace = needed(args.namespace, 'the namespace (--namespace)');
        const name = needed(args.name, 'the template’s name (--name)');
        await context.api.delete(path(namespace, name));
        if (!context.json) context.io.stdout(`template ${namespace}/${name} deleted\n`);
      },
    },
  },
};
