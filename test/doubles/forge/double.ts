import type { FaultHit, FaultRule } from './faults.js';
import type { NewRepo } from './state.js';

/** What every forge double offers a test, whatever the provider it plays. */
export interface ForgeDouble {
  /** Where the double answers (the provider's address in svc's settings). */
  readonly url: string;
  addRepo(repo: NewRepo): { id: number; fullName: string };
  /**
   * Adds a commit on top of the branch (creating it); a file whose content is null is removed; `sha`
   * fixes its id (a commit of a real git server).
   */
  commit(
    fullName: string,
    branch: string,
    files: Record<string, string | null>,
    message?: string,
    author?: string,
    sha?: string,
  ): string;
  /** Tags the commit `sha` (default: the default branch's head); returns the tagged commit. */
  tag(fullName: string, tag: string, sha?: string): string;
  /** Sends the provider's push webhook for the branch's head to `url`; `secret` forges the signature. */
  push(fullName: string, branch: string, url: string, options?: { secret?: string }): Promise<number>;
  /** Requests the double did not know, for tests to expect none. */
  unknownCalls(): readonly string[];
  /** Answers matching requests with a failure instead (a provider down or rate-limited; forge/faults.ts). */
  fail(rule: FaultRule): void;
  /** Ends every injected failure. */
  recover(): void;
  /** The requests that got an injected failure, oldest first. */
  faultHits(): readonly FaultHit[];
  close(): Promise<void>;
}
