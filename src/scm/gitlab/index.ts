import type { ScmProvider } from '../../core/scm.js';
import type { GitLabOptions } from './options.js';
import { GitLabProvider } from './provider.js';

export type { GitLabOptions } from './options.js';
export { GitLabProvider } from './provider.js';

/** The GitLab provider (`scmd`) from its settings. */
export function createGitLabProvider(options: GitLabOptions): ScmProvider {
  return new GitLabProvider(options);
}
