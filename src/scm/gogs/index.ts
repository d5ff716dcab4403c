import type { ScmProvider } from '../../core/scm.js';
import type { GogsOptions } from './options.js';
import { GogsProvider } from './provider.js';

export type { GogsOptions } from './options.js';
export { GogsProvider } from './provider.js';

/** The Gogs provider (`scme`) from its settings. */
export function createGogsProvider(options: GogsOptions): ScmProvider {
  return new GogsProvider(options);
}
