import type { Build } from '../../core/build.js';
import type { Repo } from '../../core/repo.js';
import { parseManifest, type SecretDocument } from '../../pipeline/index.js';
import { decryptSecret, DecryptError } from '../signing/secret-box.js';
import { isFromFork } from './secrets.js';

/** What a build's file encrypts inline: the values, and the secrets that cannot be decrypted and why. */
export interface InlineSecrets {
  readonly values: readonly { readonly name: string; readonly data: string }[];
  readonly errors: readonly { readonly name: string; readonly message: string }[];
}

/**
 * Decrypts the `kind: secret` documents of the build's file that carry their value inline
 * (`data:`, made by POST /api/repos/{owner}/{name}/encrypt), with the repository's own key.
 *
 * Why on the server and not in the runner (Drone's runners decrypt, with the repository's key
 * sent to them): the key then never leaves the server, so a runner — or a step that reads its
 * memory — can decrypt nothing but the values of the stage it was given, exactly as with stored
 * secrets; a leaked key would let anyone decrypt every value ever committed to the repository.
 * The runner still does the rest: it hands a value to a step only when the pipeline names it.
 *
 * Builds of forks get none (their author can copy an encrypted value from the repository into
 * their own file; DESIGN.md "Security"); other pull requests get them, as in Drone, since only
 * someone with write access can have encrypted them. A value that cannot be decrypted is
 * reported by name, so that the runner fails the stage with a clear message if a step uses it.
 */
export function inlineSecrets(config: string, repo: Repo, build: Build): InlineSecrets {
  if (isFromFork(repo, build)) return { values: [], errors: [] };
  const documents = parseManifest(config).manifest.documents.filter(
    (document): document is SecretDocument => document.kind === 'secret' && document.data !== '',
  );
  const values: { name: string; data: string }[] = [];
  const errors: { name: string; message: string }[] = [];
  for (const document of documents) {
    try {
      values.push({ name: document.name, data: decryptSecret(document.data, repo.signingKey) });
    } catch (error) {
      if (!(error instanceof DecryptError)) throw error;
      errors.push({
        name: document.name,
        message: `secret "${document.name}": its encrypted data cannot be decrypted: ${error.message}`,
      });
    }
  }
  return { values, errors };
}
