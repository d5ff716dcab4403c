import type { Readable, Writable } from 'node:stream';
import type { ClientRequest, IncomingMessage } from 'node:http';
import type { KubeConfig } from '@kubernetes/client-node';
import WebSocket from 'ws';
import { KubeApiError } from './api.js';
import { exitOf } from './exec-status.js';

/** The remote command subprotocols (k8s.io/apimachinery remotecommand), newest first. */
export const V5_PROTOCOL = 'v5.channel.k8s.io';
export const V4_PROTOCOL = 'v4.channel.k8s.io';

/** Channel bytes that lead every message of the channel protocols. */
export const CHANNEL = { stdin: 0, stdout: 1, stderr: 2, error: 3, resize: 4, close: 255 } as const;

/** Bytes of stdin per message: well under the API server's frame limit (32 MiB), big enough to stream. */
const STDIN_FRAME = 256 * 1024;
/** Bytes waiting in the socket before the sender waits: the archive is read no faster than it leaves. */
const SEND_HIGH_WATER = 1024 * 1024;
/** What is kept of a command's stderr for its error message. */
const STDERR_KEPT = 16 * 1024;

export interface ExecCall {
  namespace: string;
  pod: string;
  container: string;
  command: string[];
  /** The command's input; ended with v5's CLOSE signal (its end of file). */
  stdin?: Readable | undefined;
  /** Receives the command's output, paced: the connection is not read while it is full. */
  stdout?: Writable | undefined;
  /** Called once, when the first bytes of output arrive (before they are written to stdout). */
  onOutput?: (() => void) | undefined;
  signal?: AbortSignal | undefined;
}

export interface ExecExit {
  exitCode: number;
  /** The start of the command's stderr, as text. */
  stderr: string;
}

/**
 * Runs commands in a pod's container through the API server's `exec` subresource, over a WebSocket
 * (KEP-4006): the request names the container and the command's words; each message starts with its
 * channel (0 stdin, 1 stdout, 2 stderr, 3 the final Status with the exit code), and `v5.channel.k8s.io`
 * adds CLOSE (255, then the channel) that ends the command's input, which `v4` cannot do: a command
 * reading its input to the end needs v5 (Kubernetes 1.30 or later). Authenticates as the API calls do
 * (the kubeconfig's bearer token, client certificate, CA). Streams both ways with backpressure.
 */
export class PodExec {
  readonly #config: KubeConfig;

  constructor(config: KubeConfig) {
    this.#config = config;
  }

  async run(call: ExecCall): Promise<ExecExit> {
    call.signal?.throwIfAborted();
    const where = `${call.pod}/${call.container}`;
    const options: WebSocket.ClientOptions = { perMessageDeflate: false, handshakeTimeout: 30_000 };
    await this.#config.applyToHTTPSOptions(options);
    const socket = new WebSocket(this.#url(call), [V5_PROTOCOL, V4_PROTOCOL], options);
    return await new Promise<ExecExit>((resolve, reject) => {
      let status = '';
      const stderr: Buffer[] = [];
      let kept = 0;
      let output = false;
      let failure: Error | undefined;
      const fail = (error: Error) => {
        failure ??= error;
        socket.terminate();
      };
      // One wait for 'drain' at a time: messages already read still come after a pause.
      let waiting = false;
      const resume = () => {
        waiting = false;
        socket.resume();
      };
      const onAbort = () => fail(abortError(call.signal?.reason, `the command in ${where} was stopped`));
      call.signal?.addEventListener('abort', onAbort, { once: true });

      socket.on('unexpected-response', (_request: ClientRequest, response: IncomingMessage) => {
        refusal(response, where).then(fail, fail);
      });
      socket.on('open', () => {
        if (call.stdin === undefined) return;
        if (socket.protocol !== V5_PROTOCOL) {
          fail(
            new Error(
              `exec in ${where}: the API server offers ${socket.protocol || 'no channel protocol'}, not ${V5_PROTOCOL}, which is needed to end a command's input (Kubernetes 1.30 or later)`,
            ),
          );
          return;
        }
        sendInput(socket, call.stdin).catch((error: unknown) =>
          fail(error instanceof Error ? error : new Error(String(error))),
        );
      });
      socket.on('message', (data: Buffer) => {
        const channel = data[0];
        const payload = data.subarray(1);
        if (channel === CHANNEL.stdout && payload.length > 0) {
          if (!output) {
            output = true;
            call.onOutput?.();
          }
          if (call.stdout !== undefined && !call.stdout.write(payload) && !waiting) {
            // The reader is behind: stop reading the connection (TCP then holds the sender back).
            waiting = true;
            socket.pause();
            call.stdout.once('drain', resume);
          }
        } else if (channel === CHANNEL.stderr && kept < STDERR_KEPT) {
          stderr.push(payload);
          kept += payload.length;
        } else if (channel === CHANNEL.error) {
          status += payload.toString('utf8');
        }
      });
      socket.on('error', (error) => fail(error));
      socket.on('close', () => {
        call.signal?.removeEventListener('abort', onAbort);
        call.stdout?.off('drain', resume);
        if (failure !== undefined) return reject(failure);
        const said = Buffer.concat(stderr).toString('utf8').trim();
        try {
          resolve({ exitCode: exitOf(status, where), stderr: said });
        } catch (error) {
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      });
    });
  }

  #url(call: ExecCall): string {
    const server = this.#config.getCurrentCluster()?.server;
    if (server === undefined) throw new Error('the Kubernetes configuration names no cluster');
    const url = new URL(server);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    const path = `/api/v1/namespaces/${encodeURIComponent(call.namespace)}/pods/${encodeURIComponent(call.pod)}/exec`;
    url.pathname = url.pathname.replace(/\/+$/, '') + path;
    const query = new URLSearchParams({ container: call.container });
    for (const word of call.command) query.append('command', word);
    if (call.stdin !== undefined) query.set('stdin', 'true');
    query.set('stdout', 'true');
    query.set('stderr', 'true');
    url.search = query.toString();
    return url.toString();
  }
}

/**
 * Sends `input` on the stdin channel as it is read, then CLOSE for stdin. Stops reading when the
 * connection closed (the command ended early: its exit status says why). Rejects only for the
 * input's own failure.
 */
async function sendInput(socket: WebSocket, input: Readable): Promise<void> {
  for await (const chunk of input) {
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
    for (let at = 0; at < bytes.length; at += STDIN_FRAME) {
      const frame = Buffer.concat([Buffer.of(CHANNEL.stdin), bytes.subarray(at, at + STDIN_FRAME)]);
      if (!(await send(socket, frame))) return;
    }
  }
  await send(socket, Buffer.of(CHANNEL.close, CHANNEL.stdin));
}

/**
 * Sends one message; waits for it to be written only when much is queued already. False when the
 * connection is closing: what was not sent no longer matters.
 */
function send(socket: WebSocket, frame: Buffer): Promise<boolean> {
  if (socket.readyState !== WebSocket.OPEN) return Promise.resolve(false);
  const queued = socket.bufferedAmount > SEND_HIGH_WATER;
  return new Promise((resolve) => {
    // A write error closes the connection: the close handler reports it.
    socket.send(frame, { binary: true }, (error) => resolve(error === undefined || error === null));
    // Little is queued: the next chunk is read at once (resolving twice changes nothing).
    if (!queued) resolve(true);
  });
}

/** The API server's refusal of the upgrade (its Status) as a KubeApiError. */
async function refusal(response: IncomingMessage, where: string): Promise<KubeApiError> {
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  const code = response.statusCode ?? 0;
  let reason = '';
  let message = text.trim() || (response.statusMessage ?? '');
  try {
    const body = JSON.parse(text) as { reason?: unknown; message?: unknown };
    if (typeof body.reason === 'string') reason = body.reason;
    if (typeof body.message === 'string') message = body.message;
  } catch {
    // Not a Status (a proxy's page): its text is the message.
  }
  return new KubeApiError(code, reason, `exec in ${where}: Kubernetes answered ${code}: ${message}`);
}

function abortError(reason: unknown, fallback: string): Error {
  const error = new Error(reason instanceof Error ? reason.message : fallback, { cause: reason });
  error.name = 'AbortError';
  return error;
}
