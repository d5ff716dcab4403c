/** What one user may do with one repository, as the git provider said at the last sync. */
export interface Perm {
  userId: number;
  repoId: number;
  read: boolean;
  write: boolean;
  admin: boolean;
  /** Epoch milliseconds of the sync that wrote this permission. */
  synced: number;
  created: number;
  updated: number;
}

/**
 * Persistence of permissions; one row per (user, repository).
 * - `upsert` creates or replaces the row and returns it.
 */
export interface PermStore {
  find(userId: number, repoId: number): Promise<Perm | undefined>;
  listRepo(repoId: number): Promise<Perm[]>;
  upsert(perm: Omit<Perm, 'created' | 'updated'>): Promise<Perm>;
  delete(userId: number, repoId: number): Promise<void>;
}
