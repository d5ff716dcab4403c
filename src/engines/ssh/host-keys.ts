import { createHash, createHmac } from 'node:crypto';
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { knownHostsName } from './target.js';

/** A host key as OpenSSH prints its fingerprint: `SHA256:` and the unpadded base64 of its hash. */
export function fingerprint(key: Buffer): string {
  return `SHA256:${createHash('sha256').update(key).digest('base64').replace(/=+$/, '')}`;
}

/** The key type written at the start of an SSH public key blob (`ssh-ed25519`, `ssh-rsa`, …). */
export function keyType(key: Buffer): string {
  if (key.length < 4) return 'unknown';
  const length = key.readUInt32BE(0);
  return key.subarray(4, 4 + length).toString('latin1');
}

/** One key line of a known_hosts file. */
interface KnownKey {
  patterns: string[];
  key: Buffer;
  revoked: boolean;
}

/** The verdict on a host's key: trusted (with what to tell the build log), or refused with why. */
export type HostKeyVerdict = { trusted: true; notice?: string } | { trusted: false; reason: string };

/**
 * Verifies host keys: against a known_hosts file (OpenSSH's format: plain and hashed host names,
 * `[host]:port`, `@revoked`), and, for a host not listed there, trust on first use: the key is
 * remembered in `trustFile` (the runner's own known_hosts, kept across restarts) and a later
 * different key is refused, naming both fingerprints.
 */
export class HostKeys {
  readonly #knownHostsFile: string | undefined;
  readonly #trustFile: string | undefined;
  readonly #remembered = new Map<string, Buffer>();

  constructor(options: { knownHostsFile?: string | undefined; trustFile?: string | undefined }) {
    this.#knownHostsFile = options.knownHostsFile;
    this.#trustFile = options.trustFile;
    for (const entry of readKnownHosts(options.trustFile)) {
      for (const pattern of entry.patterns) this.#remembered.set(pattern, entry.key);
    }
  }

  check(host: string, port: number, key: Buffer): HostKeyVerdict {
    const name = knownHostsName(host, port);
    const seen = fingerprint(key);
    const listed = readKnownHosts(this.#knownHostsFile).filter((entry) =>
      entry.patterns.some((pattern) => matches(pattern, name)),
    );
    if (listed.some((entry) => entry.revoked && entry.key.equals(key)))
      return {
        trusted: false,
        reason: `the host key of ${name} (${seen}) is marked @revoked in ${this.#knownHostsFile}`,
      };
    const valid = listed.filter((entry) => !entry.revoked);
    if (valid.length > 0) {
      if (valid.some((entry) => entry.key.equals(key))) return { trusted: true };
      return {
        trusted: false,
        reason: changed(
          name,
          valid.map((entry) => fingerprint(entry.key)),
          seen,
          this.#knownHostsFile ?? 'known_hosts',
        ),
      };
    }
    const known = this.#remembered.get(name);
    if (known !== undefined) {
      if (known.equals(key)) return { trusted: true };
      return {
        trusted: false,
        reason: changed(name, [fingerprint(known)], seen, this.#trustFile ?? 'this runner’s memory'),
      };
    }
    this.#remembered.set(name, key);
    if (this.#trustFile !== undefined) {
      mkdirSync(dirname(this.#trustFile), { recursive: true });
      appendFileSync(this.#trustFile, `${name} ${keyType(key)} ${key.toString('base64')}\n`, { mode: 0o600 });
    }
    return {
      trusted: true,
      notice: `ssh: ${name} is not in known_hosts; trusting its ${keyType(key)} key ${seen} on first use`,
    };
  }
}

function changed(name: string, expected: string[], seen: string, where: string): string {
  return `the host key of ${name} changed: expected ${expected.join(' or ')} (${where}), got ${seen}; if the host was reinstalled, remove its old key from ${where}`;
}

function readKnownHosts(file: string | undefined): KnownKey[] {
  if (file === undefined) return [];
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  const entries: KnownKey[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const fields = line.split(/\s+/);
    const marker = fields[0]?.startsWith('@') === true ? fields.shift() : undefined;
    if (marker === '@cert-authority') continue;
    const [hosts, , blob] = fields;
    if (hosts === undefined || blob === undefined) continue;
    entries.push({
      patterns: hosts.split(','),
      key: Buffer.from(blob, 'base64'),
      revoked: marker === '@revoked',
    });
  }
  return entries;
}

/** A known_hosts host pattern: a name, a hashed name (`|1|salt|hash`), or a `*`/`?` wildcard; `!` negates. */
function matches(pattern: string, name: string): boolean {
  if (pattern.startsWith('!')) return false;
  const hashed = /^\|1\|([^|]+)\|(.+)$/.exec(pattern);
  if (hashed !== null) {
    const digest = createHmac('sha1', Buffer.from(hashed[1] ?? '', 'base64'))
      .update(name)
      .digest('base64');
    return digest === hashed[2];
  }
  const regex = new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
    'i',
  );
  return regex.test(name);
}

/**
 * The host keys of a runner or `svc exec`: `knownHostsFile` (SVC_SSH_KNOWN_HOSTS, default
 * ~/.ssh/known_hosts), and hosts trusted on first use remembered in ~/.svc/ssh_known_hosts.
 */
export function runnerHostKeys(knownHostsFile: string | null | undefined): HostKeys {
  return new HostKeys({
    knownHostsFile: knownHostsFile ?? join(homedir(), '.ssh', 'known_hosts'),
    trustFile: join(homedir(), '.svc', 'ssh_known_hosts'),
  });
}
