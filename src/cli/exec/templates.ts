import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { JsonnetEvaluator } from '../../pipeline/languages/jsonnet/evaluator.js';
import { LANGUAGE_LIMITS } from '../../pipeline/languages/limits.js';
import { StarlarkEvaluator } from '../../pipeline/languages/starlark/evaluator.js';
import {
  mayHoldTemplates,
  TemplateError,
  TemplateRenderer,
  type TemplateLoader,
} from '../../pipeline/templates/index.js';
import { ApiClient } from '../client/api-client.js';
import { RequestError } from '../client/errors.js';
import { factsOf } from '../program/local-program.js';
import type { ExecArgs } from './args.js';

type Env = Readonly<Record<string, string | undefined>>;

/** The file with its templates rendered (as it was when it has none), or what went wrong. */
export type LocalTemplates = { ok: true; text: string } | { ok: false; message: string };

/**
 * Renders the `kind: template` documents of a file `svc exec` runs, as the server would: from the
 * files of `--template-dir` (DIR/<name>), or else from the server the API client talks to
 * (SVC_SERVER, SVC_TOKEN), the templates of `--namespace` or of the owner in the `origin` remote's
 * URL. Every language is on: a local run trusts what it runs.
 */
export async function localTemplates(
  file: { path: string; text: string },
  args: Pick<ExecArgs, 'event' | 'branch' | 'templateDir' | 'namespace'>,
  env: Env,
  cwd: string,
): Promise<LocalTemplates> {
  if (!mayHoldTemplates(file.text)) return { ok: true, text: file.text };
  const where = await templateSource(args, env, cwd);
  if ('message' in where) return { ok: false, message: where.message };
  const starlark = new StarlarkEvaluator(LANGUAGE_LIMITS.starlark);
  const renderer = new TemplateRenderer({
    evaluators: {
      starlark,
      ...(JsonnetEvaluator.available() ? { jsonnet: new JsonnetEvaluator(LANGUAGE_LIMITS.jsonnet) } : {}),
    },
    unavailable: { jsonnet: 'svc was installed without Jsonnet (see docs/pipelines.md)' },
  });
  try {
    const text = await renderer.render({
      path: file.path,
      text: file.text,
      facts: await factsOf(cwd, args),
      extras: { buildNumber: 1, buildTrigger: '@exec', buildCreated: Date.now(), repoScm: 'git' },
      load: where.load,
      source: where.source,
    });
    return { ok: true, text: text ?? file.text };
  } catch (error) {
    if (error instanceof TemplateError || error instanceof RequestError)
      return { ok: false, message: error.message };
    throw error;
  } finally {
    await starlark.close();
  }
}

async function templateSource(
  args: Pick<ExecArgs, 'templateDir' | 'namespace'>,
  env: Env,
  cwd: string,
): Promise<{ load: TemplateLoader; source: string } | { message: string }> {
  if (args.templateDir !== undefined) {
    const folder = resolve(cwd, args.templateDir);
    return { load: (name) => fromFolder(folder, name), source: `folder ${args.templateDir}` };
  }
  const server = env.SVC_SERVER ?? '';
  const token = env.SVC_TOKEN ?? '';
  if (server === '' || token === '')
    return {
      message:
        'the file loads templates (kind: template): give --template-dir DIR with them, or set SVC_SERVER and SVC_TOKEN to read them from the server',
    };
  const namespace = args.namespace ?? (await originOwner(cwd));
  if (namespace === undefined)
    return {
      message:
        'the file loads templates from the server, whose namespace is not known: give --namespace NS (no origin remote names an owner)',
    };
  const api = new ApiClient({ server, token });
  return {
    load: (name) => fromServer(api, namespace, name),
    source: `namespace ${namespace} at ${server}`,
  };
}

/** DIR/<name>: the renderer only asks for single file names, so the file is always inside DIR. */
async function fromFolder(folder: string, name: string): Promise<string | undefined> {
  const file = resolve(folder, name);
  if (dirname(file) !== folder) return undefined;
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new TemplateError(`template ${name}: cannot read ${file}: ${String(error)}`);
  }
}

async function fromServer(api: ApiClient, namespace: string, name: string): Promise<string | undefined> {
  const path = `/api/templates/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}`;
  try {
    return (await api.get<{ data: string }>(path)).data;
  } catch (error) {
    // 404 is also the answer for a namespace the token's user is not a member of: say that one.
    if (error instanceof RequestError && error.status === 404 && !error.message.startsWith('namespace'))
      return undefined;
    if (error instanceof RequestError)
      throw new TemplateError(`template ${name}: the server refused it: ${error.message}`);
    throw error;
  }
}

/**
 * The owner in the `origin` remote's URL (`https://github.com/acme/app.git`, `git@host:acme/app`):
 * everything before the repository's name, so GitLab's groups keep their subgroups.
 */
function originOwner(cwd: string): Promise<string | undefined> {
  return new Promise((done) => {
    execFile('git', ['remote', 'get-url', 'origin'], { cwd }, (error, stdout) => {
      if (error) return done(undefined);
      const url = stdout
        .trim()
        .replace(/\.git$/, '')
        .replace(/\/+$/, '');
      const path = /^[\w.-]+@[^:/]+:(.+)$/.exec(url)?.[1] ?? /^[a-z+]+:\/\/[^/]+\/(.+)$/.exec(url)?.[1];
      const segments = (path ?? '').split('/').filter(Boolean);
      done(segments.length >= 2 ? segments.slice(0, -1).join('/') : undefined);
    });
  });
}
