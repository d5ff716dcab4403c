import type { ScmProvider } from '../../core/scm.js';
import type { GitHubOptions } from './options.js';
import { GitHubProvider } from './provider.js';

export type { GitHubOptions } from './options.js';
export { GitHubProvider } from './provider.js';

/** The GitHub / GitHub Enterprise Server provider (`scmc`) from its settings. */
export function createGitHubProvider(options: GitHubOptions): ScmProvider {
  return new GitHubProvider(options);
}
