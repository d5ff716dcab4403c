import { describe, expect, it } from 'vitest';
import { ConflictError } from '../../core/errors.js';
import { unique, useStore, type OpenFreshStore } from './fixtures.case.js';

/** RunnerTokenStore: tokens by hash, names used once for ever, revocation, last use. */
export function runnerTokensContract(open: OpenFreshStore): void {
  describe('runner tokens', () => {
    const store = useStore(open);

    it('creates a token, finds it by its hash, lists it by name', async () => {
      const name = unique('runner-');
      const hash = unique('hash-');
      const token = await store().runnerTokens.create({ name, hash, labels: { deploy: 'prod', zone: 'eu' } });
      expect(token).toMatchObject({ name, labels: { deploy: 'prod', zone: 'eu' }, lastUsed: 0, revoked: 0 });
      expect(await store().runnerTokens.findHash(hash)).toEqual(token);
      expect(await store().runnerTokens.findHash(unique('other-'))).toBeUndefined();
      expect((await store().runnerTokens.list()).map((t) => t.name)).toContain(name);
    });

    it('never gives a name to a second token, revoked or not, nor a hash to a second name', async () => {
      const name = unique('runner-');
      const hash = unique('hash-');
      await store().runnerTokens.create({ name, hash, labels: {} });
      await expect(store().runnerTokens.create({ name, hash: unique('hash-'), labels: {} })).rejects.toThrow(
        ConflictError,
      );
      expect(await store().runnerTokens.revoke(name, 5_000)).toBe(true);
      await expect(store().runnerTokens.create({ name, hash: unique('hash-'), labels: {} })).rejects.toThrow(
        /never used twice/,
      );
      await expect(
        store().runnerTokens.create({ name: unique('runner-'), hash, labels: {} }),
      ).rejects.toThrow(ConflictError);
    });

    it('revokes once, keeping the token findable as revoked, and records uses', async () => {
      const name = unique('runner-');
      const hash = unique('hash-');
      const token = await store().runnerTokens.create({ name, hash, labels: {} });
      await store().runnerTokens.touch(token.id, 7_000);
      expect(await store().runnerTokens.revoke(name, 9_000)).toBe(true);
      expect(await store().runnerTokens.revoke(name, 9_500)).toBe(false);
      expect(await store().runnerTokens.revoke(unique('nobody-'), 9_500)).toBe(false);
      expect(await store().runnerTokens.findHash(hash)).toMatchObject({ lastUsed: 7_000, revoked: 9_000 });
    });
  });
}
