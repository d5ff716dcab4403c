import type { ScmProvider } from '../../core/scm.js';
import type { BitbucketServerOptions } from './options.js';
import { BitbucketServerProvider } from './provider.js';

export type { BitbucketServerOptions } from './options.js';
export { BitbucketServerProvider } from './provider.js';

/** The Bitbucket Server / Data Center provider (`scmf`) from its settings. */
export function createBitbucketServerProvider(options: BitbucketServerOptions): ScmProvider {
  return new BitbucketServerProvider(options);
}
