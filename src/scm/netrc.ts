import type { ScmNetrc } from '../core/scm.js';

/** The SVC_GIT_* settings that shape clone credentials, whatever the provider. */
export interface GitAuthOptions {
  /** SVC_GIT_ALWAYS_AUTH: credentials for public repositories too (providers in private mode). */
  gitAlwaysAuth: boolean;
  /** SVC_GIT_USERNAME / SVC_GIT_PASSWORD: one account for every clone, instead of the user's token. */
  gitUsername: string | null;
  gitPassword: string | null;
}

/**
 * Clone credentials for a repository: none for a public repository (unless always-auth), the
 * SVC_GIT_* account when both its parts are set, else the provider-specific `fromToken` pair.
 * The machine is the clone URL's host name, which is what git matches `.netrc` entries against.
 */
export function netrcFor(
  options: GitAuthOptions,
  repo: { private: boolean; cloneUrl: string },
  fromToken: { login: string; password: string },
): ScmNetrc | undefined {
  if (!repo.private && !options.gitAlwaysAuth) return undefined;
  let machine: string;
  try {
    machine = new URL(repo.cloneUrl).hostname;
  } catch {
    // An SSH-style or otherwise unparsable clone URL cannot be cloned over HTTP(S) anyway.
    return undefined;
  }
  if (options.gitUsername && options.gitPassword) {
    return { machine, login: options.gitUsername, password: options.gitPassword };
  }
  return { machine, ...fromToken };
}

/** The SVC_GIT_* part of a provider's options, on its own. */
export function gitAuthOf(options: GitAuthOptions): GitAuthOptions {
  return {
    gitAlwaysAuth: options.gitAlwaysAuth,
    gitUsername: options.gitUsername,
    gitPassword: options.gitPassword,
  };
}
