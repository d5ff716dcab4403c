import type { ScmProvider } from '../../core/scm.js';
import type { BitbucketOptions } from './options.js';
import { BitbucketProvider } from './provider.js';

export type { BitbucketOptions } from './options.js';
export { BitbucketProvider } from './provider.js';

/** The Bitbucket Cloud provider (`scma`) from its settings. */
export function createBitbucketProvider(options: BitbucketOptions): ScmProvider {
  return new BitbucketProvider(options);
}
