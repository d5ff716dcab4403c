import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

/** What an account may do with a repository: read it, push to it, or administer it. */
export type ForgeRole = 'read' | 'write' | 'admin';

const account = z.object({
  id: z.number().int(),
  login: z.string(),
  email: z.string(),
  /** scrypt, as passwords.ts writes it; empty for an account without a password (token only). */
  passwordHash: z.string(),
  admin: z.boolean(),
  created: z.number(),
});
const repo = z.object({
  id: z.number().int(),
  owner: z.string(),
  name: z.string(),
  private: z.boolean(),
  defaultBranch: z.string(),
  /** Accounts besides the owner (who administers), by login. */
  members: z.record(z.string(), z.enum(['read', 'write', 'admin'])),
  created: z.number(),
});
const hook = z.object({ url: z.string(), secret: z.string() });
const status = z.object({
  sha: z.string(),
  context: z.string(),
  state: z.string(),
  description: z.string(),
  targetUrl: z.string(),
  updated: z.number(),
});
const data = z.object({
  version: z.literal(1),
  nextId: z.number().int(),
  accounts: z.array(account),
  /** SHA-256 (hex) of each access token, never the token. */
  tokens: z.array(z.object({ hash: z.string(), accountId: z.number().int(), created: z.number() })),
  repos: z.array(repo),
  hooks: z.record(z.string(), z.array(hook)),
  statuses: z.record(z.string(), z.array(status)),
});

export type ForgeAccount = z.infer<typeof account>;
export type ForgeRepo = z.infer<typeof repo>;
export type ForgeHook = z.infer<typeof hook>;
export type ForgeStatus = z.infer<typeof status>;
type ForgeData = z.infer<typeof data>;

/** How many statuses a repository keeps, the oldest dropped first. */
const STATUSES_KEPT = 500;

export const tokenHash = (token: string): string => createHash('sha256').update(token).digest('hex');

/**
 * The built-in provider's own records — accounts, their access tokens (hashed), repositories with
 * their members, webhooks and commit statuses — in one JSON file next to the repositories
 * (`forge.json`, mode 0600: it holds the webhooks' secrets, as the data folder holds the local RPC
 * secret). Every change is written whole to a temporary file and renamed over the old one, so a
 * crash leaves the previous state or the new one, never half of either. One server uses a folder.
 */
export class ForgeState {
  readonly #file: string;
  #data: ForgeData;

  constructor(root: string) {
    mkdirSync(root, { recursive: true, mode: 0o700 });
    this.#file = join(root, 'forge.json');
    this.#data = existsSync(this.#file)
      ? ForgeState.#read(this.#file)
      : { version: 1, nextId: 1, accounts: [], tokens: [], repos: [], hooks: {}, statuses: {} };
  }

  static #read(file: string): ForgeData {
    const parsed = data.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    if (!parsed.success)
      throw new Error(`${file} is not a forge state svc can read: ${parsed.error.message}`);
    return parsed.data;
  }

  /** Applies `change` to a copy of the state, writes it, and only then makes it the state. */
  #update<T>(change: (draft: ForgeData) => T): T {
    const draft = structuredClone(this.#data);
    const result = change(draft);
    const temporary = `${this.#file}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(draft, null, 1)}\n`, { mode: 0o600 });
    renameSync(temporary, this.#file);
    this.#data = draft;
    return result;
  }

  accounts(): readonly ForgeAccount[] {
    return this.#data.accounts;
  }

  account(login: string): ForgeAccount | undefined {
    const wanted = login.toLowerCase();
    return this.#data.accounts.find((a) => a.login.toLowerCase() === wanted);
  }

  accountById(id: number): ForgeAccount | undefined {
    return this.#data.accounts.find((a) => a.id === id);
  }

  addAccount(fields: Omit<ForgeAccount, 'id' | 'created'>): ForgeAccount {
    return this.#update((d) => {
      const created: ForgeAccount = { ...fields, id: d.nextId++, created: Date.now() };
      d.accounts.push(created);
      return created;
    });
  }

  setPassword(accountId: number, passwordHash: string): void {
    this.#update((d) => {
      const found = d.accounts.find((a) => a.id === accountId);
      if (found !== undefined) found.passwordHash = passwordHash;
    });
  }

  /** A new access token of the account; only its hash is kept. */
  issueToken(accountId: number): string {
    const token = `svcl_${randomBytes(24).toString('base64url')}`;
    this.#update((d) => d.tokens.push({ hash: tokenHash(token), accountId, created: Date.now() }));
    return token;
  }

  /** The account a token belongs to; undefined for an unknown token. */
  accountOfToken(token: string): ForgeAccount | undefined {
    const hash = tokenHash(token);
    const found = this.#data.tokens.find((t) => t.hash === hash);
    return found === undefined ? undefined : this.accountById(found.accountId);
  }

  repos(): readonly ForgeRepo[] {
    return this.#data.repos;
  }

  repo(owner: string, name: string): ForgeRepo | undefined {
    const [o, n] = [owner.toLowerCase(), name.toLowerCase()];
    return this.#data.repos.find((r) => r.owner.toLowerCase() === o && r.name.toLowerCase() === n);
  }

  addRepo(fields: Omit<ForgeRepo, 'id' | 'created'>): ForgeRepo {
    return this.#update((d) => {
      const created: ForgeRepo = { ...fields, id: d.nextId++, created: Date.now() };
      d.repos.push(created);
      return created;
    });
  }

  /** The account's role in the repository: the owner administers it, members have theirs. */
  role(repoId: number, login: string): ForgeRole | undefined {
    const found = this.#data.repos.find((r) => r.id === repoId);
    if (found === undefined) return undefined;
    if (found.owner.toLowerCase() === login.toLowerCase()) return 'admin';
    const entry = Object.entries(found.members).find(
      ([member]) => member.toLowerCase() === login.toLowerCase(),
    );
    return entry?.[1];
  }

  hooks(repoId: number): readonly ForgeHook[] {
    return this.#data.hooks[String(repoId)] ?? [];
  }

  /** Adds the webhook, or gives the one with that URL the new secret. */
  putHook(repoId: number, next: ForgeHook): void {
    this.#update((d) => {
      const list = (d.hooks[String(repoId)] ??= []);
      const same = list.find((h) => h.url === next.url);
      if (same === undefined) list.push({ ...next });
      else same.secret = next.secret;
    });
  }

  deleteHooks(repoId: number, url: string): void {
    this.#update((d) => {
      d.hooks[String(repoId)] = (d.hooks[String(repoId)] ?? []).filter((h) => h.url !== url);
    });
  }

  statuses(repoId: number, sha: string): readonly ForgeStatus[] {
    return (this.#data.statuses[String(repoId)] ?? []).filter((s) => s.sha === sha);
  }

  /** Adds a status of the commit; the newest of each context is the one that counts. */
  putStatus(repoId: number, next: Omit<ForgeStatus, 'updated'>): void {
    this.#update((d) => {
      const list = d.statuses[String(repoId)] ?? [];
      list.push({ ...next, updated: Date.now() });
      d.statuses[String(repoId)] = list.slice(-STATUSES_KEPT);
    });
  }
}
