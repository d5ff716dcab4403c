import { randomBytes } from 'node:crypto';
import { StaleVersionError } from '../../core/errors.js';
import type { Repo, RepoStore } from '../../core/repo.js';

/**
 * The repository's key for encrypting and signing pipeline files, made on first use: 32 random
 * characters (192 bits; used as their bytes, an AES-256 key as in Drone). Stored with the
 * repository's optimistic lock; when two first uses race, the one that loses re-reads the
 * repository and uses the key the winner stored, so every value and signature is made with the
 * one key that stays.
 */
export async function repoKey(repos: Pick<RepoStore, 'find' | 'update'>, repo: Repo): Promise<string> {
  if (repo.signingKey !== '') return repo.signingKey;
  const key = randomBytes(24).toString('base64url');
  try {
    return (await repos.update({ ...repo, signingKey: key })).signingKey;
  } catch (error) {
    if (!(error instanceof StaleVersionError)) throw error;
    const fresh = await repos.find(repo.id);
    if (fresh === undefined) throw error;
    if (fresh.signingKey !== '') return fresh.signingKey;
    return (await repos.update({ ...fresh, signingKey: key })).signingKey;
  }
}
