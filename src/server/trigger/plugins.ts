import type { Logger } from 'pino';
import type { Build, NewBuild } from '../../core/build.js';
import { SvcError } from '../../core/errors.js';
import type { ConvertPlugin, ValidatePlugin } from '../../core/plugins.js';
import type { Repo } from '../../core/repo.js';

/** What the plugins make of a pipeline file: the text to read and whether to block, or no build, or an error build. */
export type PluginOutcome =
  | { kind: 'ok'; text: string; blocked: boolean }
  | { kind: 'error'; error: string }
  | { kind: 'skipped'; reason: string };

/**
 * The conversion and validation plugins (SVC_CONVERT_PLUGIN_*, SVC_VALIDATE_PLUGIN_*), in that
 * order, as Drone calls them: the text to read, whether to block the build, or why there is no
 * build (skip) or an error build. A plugin that fails or does not answer makes an error build that
 * says so, rather than no trace at all.
 */
export async function runPlugins(
  deps: { convert?: ConvertPlugin; validate?: ValidatePlugin; logger: Pick<Logger, 'warn'> },
  now: number,
  file: { repo: Repo; base: NewBuild; number: number; path: string; text: string },
): Promise<PluginOutcome> {
  const { convert, validate } = deps;
  const { repo, path, text } = file;
  if (convert === undefined && validate === undefined) return { kind: 'ok', text, blocked: false };
  const build: Build = { ...file.base, id: 0, number: file.number, created: now, updated: now, version: 0 };
  try {
    const converted = (await convert?.convert({ repo, build, path, text })) ?? text;
    const verdict = (await validate?.validate({ repo, build, path, text: converted })) ?? {
      verdict: 'valid',
    };
    switch (verdict.verdict) {
      case 'valid':
        return { kind: 'ok', text: converted, blocked: false };
      case 'block':
        return { kind: 'ok', text: converted, blocked: true };
      case 'skip':
        return { kind: 'skipped', reason: verdict.reason };
      case 'invalid':
        return { kind: 'error', error: verdict.message };
    }
  } catch (error) {
    if (!(error instanceof SvcError)) throw error;
    deps.logger.warn({ err: error, repo: repo.slug }, 'trigger: a pipeline plugin failed');
    return { kind: 'error', error: error.message };
  }
}
