import { finished, type Readable, type Writable } from 'node:stream';
import { Client, type ClientChannel } from 'ssh2';
import type { HostKeys } from './host-keys.js';
import type { SshTarget } from './target.js';

/** How long connecting (TCP, key exchange, authentication) may take. */
const CONNECT_TIMEOUT_MS = 20_000;

/** Where a command's output goes, chunk by chunk. */
export interface CommandStreams {
  /**
   * Each chunk as it comes, or a stream it is piped into with backpressure (the host's command
   * waits while the stream is full); the stream is not ended: the command's exit says how it went.
   */
  stdout?: ((chunk: Buffer) => void) | Writable;
  stderr?: (chunk: Buffer) => void;
  /**
   * Written to the command's standard input, which is then closed. A stream that fails closes the
   * input too (the command sees it end early), and `exec` then rejects with the stream's error.
   */
  stdin?: string | Readable;
  /** Closes the channel: the command's input and output end; `exec` rejects with an AbortError. */
  signal?: AbortSignal | undefined;
}

/** How a remote command ended: its exit code, or the signal that ended it (code null). */
export interface CommandExit {
  code: number | null;
  signal: string | undefined;
}

/** The connection was lost while a command ran: the command's fate is unknown. */
export class ConnectionLost extends Error {}

/**
 * One SSH connection to a host, on which a stage opens a channel per command. Every failure names
 * the host and the cause (refused, timed out, authentication, host key).
 */
export class SshConnection {
  readonly #client: Client;
  readonly #name: string;
  readonly #open = new Set<(error: Error) => void>();
  #lost: Error | undefined;

  private constructor(client: Client, name: string) {
    this.#client = client;
    this.#name = name;
    const lose = (why: string) => {
      this.#lost ??= new ConnectionLost(`the connection to ${name} was lost (${why})`);
      for (const fail of this.#open) fail(this.#lost);
      this.#open.clear();
    };
    client.on('close', () => lose('closed'));
    client.on('error', (error) => lose(error.message));
  }

  /** The host as messages name it: `user@host:port`. */
  get name(): string {
    return this.#name;
  }

  static open(
    target: SshTarget,
    hostKeys: Pick<HostKeys, 'check'>,
    notices: string[],
  ): Promise<SshConnection> {
    const name = `${target.user}@${target.host}:${target.port}`;
    return new Promise((resolve, reject) => {
      const client = new Client();
      let refusedKey: string | undefined;
      const fail = (error: Error & { level?: string; code?: string }) => {
        client.end();
        reject(new Error(`ssh ${name}: ${refusedKey ?? describe(error, target)}`));
      };
      client.once('ready', () => {
        client.removeListener('error', fail);
        resolve(new SshConnection(client, name));
      });
      client.once('error', fail);
      // ssh2 throws at once for a key it cannot parse (or a wrong passphrase).
      try {
        connect();
      } catch (error) {
        fail(error as Error);
      }
      function connect() {
        client.connect({
          host: target.host,
          port: target.port,
          username: target.user,
          ...(target.password === undefined ? {} : { password: target.password }),
          ...(target.privateKey === undefined ? {} : { privateKey: target.privateKey }),
          ...(target.passphrase === undefined ? {} : { passphrase: target.passphrase }),
          readyTimeout: CONNECT_TIMEOUT_MS,
          keepaliveInterval: 10_000,
          keepaliveCountMax: 3,
          hostVerifier: (key: Buffer) => {
            const verdict = hostKeys.check(target.host, target.port, key);
            if (!verdict.trusted) refusedKey = verdict.reason;
            else if (verdict.notice !== undefined) notices.push(verdict.notice);
            return verdict.trusted;
          },
        });
      }
    });
  }

  /** Runs `command` (through the user's login shell), streaming its output; resolves when it exits. */
  exec(command: string, streams: CommandStreams = {}): Promise<CommandExit> {
    if (this.#lost !== undefined) return Promise.reject(this.#lost);
    return new Promise((resolve, reject) => {
      const lost = (error: Error) => reject(error);
      this.#open.add(lost);
      this.#client.exec(command, (error: Error | undefined, channel: ClientChannel) => {
        if (error !== undefined) {
          this.#open.delete(lost);
          reject(new Error(`ssh ${this.#name}: cannot start a command: ${error.message}`));
          return;
        }
        let exit: CommandExit | undefined;
        let inputFailed: Error | undefined;
        const { stdout, stdin, signal } = streams;
        const abort = () => channel.close();
        signal?.addEventListener('abort', abort, { once: true });
        channel.on('exit', (code: number | null, signal?: string) => {
          exit = { code, signal };
        });
        // 'close' comes after the output's 'end': everything read has been passed on by then.
        if (typeof stdout === 'function') channel.on('data', stdout);
        else if (stdout !== undefined) channel.pipe(stdout, { end: false });
        else channel.resume();
        channel.stderr.on('data', (chunk: Buffer) => streams.stderr?.(chunk));
        channel.on('close', () => {
          this.#open.delete(lost);
          signal?.removeEventListener('abort', abort);
          if (signal?.aborted === true) reject(abortError(signal));
          else if (inputFailed !== undefined) reject(inputFailed);
          else if (exit !== undefined) resolve(exit);
          else
            reject(
              this.#lost ??
                new ConnectionLost(`the connection to ${this.#name} closed before the command ended`),
            );
        });
        if (signal?.aborted === true) abort();
        if (stdin === undefined || typeof stdin === 'string') channel.end(stdin);
        else {
          // Also for a stream that failed before the channel opened (its error is not emitted again).
          finished(stdin, { writable: false }, (error) => {
            if (error === undefined || error === null) return;
            inputFailed = error;
            channel.end();
          });
          stdin.pipe(channel);
        }
      });
    });
  }

  /** Runs a short command and collects its output; an exit other than 0 is an error with its stderr. */
  async check(command: string, stdin?: string | Readable): Promise<string> {
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const exit = await this.exec(command, {
      stdout: (chunk) => out.push(chunk),
      stderr: (chunk) => err.push(chunk),
      ...(stdin === undefined ? {} : { stdin }),
    });
    if (exit.code !== 0) {
      const why = Buffer.concat(err).toString('utf8').trim() || `exit ${exit.code ?? exit.signal ?? '?'}`;
      throw new Error(`ssh ${this.#name}: ${why}`);
    }
    return Buffer.concat(out).toString('utf8');
  }

  close(): void {
    this.#client.end();
  }
}

/** The rejection of a command whose signal aborted it. */
function abortError(signal: AbortSignal): Error {
  const error = new Error('aborted', { cause: signal.reason });
  error.name = 'AbortError';
  return error;
}

/** A connection failure in words: refused, timed out, no such host, or authentication. */
function describe(error: Error & { level?: string; code?: string }, target: SshTarget): string {
  if (error.level === 'client-authentication') {
    const ways = [
      target.privateKey === undefined ? '' : 'key',
      target.password === undefined ? '' : 'password',
    ]
      .filter((way) => way !== '')
      .join(' or ');
    return `authentication failed for user ${target.user} (${ways || 'no password or key given'})`;
  }
  if (error.code === 'ECONNREFUSED') return 'connection refused';
  if (error.code === 'ENOTFOUND' || error.code === 'EAI_AGAIN') return 'no such host';
  if (error.code === 'EHOSTUNREACH' || error.code === 'ENETUNREACH') return 'host unreachable';
  if (error.level === 'client-timeout' || /timed out/i.test(error.message))
    return `timed out after ${CONNECT_TIMEOUT_MS / 1000} s`;
  if (/private key|passphrase/i.test(error.message))
    return `the private key cannot be used: ${error.message}`;
  return error.message;
}
