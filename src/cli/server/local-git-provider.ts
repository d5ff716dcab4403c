import { join, resolve } from 'node:path';
import { dataFolder } from './data-folder.js';
import type { ServerSettings } from '../../config/index.js';
import type { GitAuthOptions } from '../../scm/netrc.js';
import { LocalGitProvider } from '../../scm/local/provider.js';
import { PROVIDER_SETTINGS } from '../local-settings.js';

/** Where the built-in provider keeps its repositories: SVC_SCML_ROOT, or `git` in the data folder. */
export function localGitRoot(settings: ServerSettings, cwd: string): string {
  if (settings.SVC_SCML_ROOT !== null) return resolve(cwd, settings.SVC_SCML_ROOT);
  return join(dataFolder(settings, cwd), 'git');
}

/** The built-in provider (SCML) when SVC_SCML_ENABLED; an error naming the clash with another provider. */
export function localGitProvider(
  settings: ServerSettings,
  git: GitAuthOptions,
  cwd: string,
): { provider: LocalGitProvider; notes: string[] } | { error: string } | undefined {
  if (settings.SVC_SCML_ENABLED !== true) return undefined;
  const others = PROVIDER_SETTINGS.filter((name) => settings[name] !== null);
  if (others.length > 0)
    return {
      error: `SVC_SCML_ENABLED: the built-in git provider cannot go with another one (${others.join(', ')} ${others.length === 1 ? 'is' : 'are'} set); choose one`,
    };
  const root = localGitRoot(settings, cwd);
  const publicUrl = `${settings.SVC_SERVER_PROTO}://${settings.SVC_SERVER_HOST}`;
  return {
    provider: new LocalGitProvider({
      root,
      publicUrl,
      ...(settings.SVC_SCML_CLONE_URL === null ? {} : { cloneUrl: settings.SVC_SCML_CLONE_URL }),
      ...git,
    }),
    notes: [`SVC_SCML_ENABLED: the built-in git provider keeps its repositories in ${root}`],
  };
}
