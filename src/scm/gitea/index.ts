import type { ScmProvider } from '../../core/scm.js';
import type { GiteaOptions } from './options.js';
import { GiteaProvider } from './provider.js';

export type { GiteaOptions } from './options.js';
export { GiteaProvider } from './provider.js';

/** The Gitea / Forgejo provider (`scmb`) from its settings. */
export function createGiteaProvider(options: GiteaOptions): ScmProvider {
  return new GiteaProvider(options);
}
