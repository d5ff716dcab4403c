/*
 * GET/POST /api/v1/namespaces/{ns}/pods/{name}/exec over a WebSocket, as the API server and the
 * kubelet answer it (k8s.io/apimachinery wsstream and remotecommand; KEP-4006):
 * - Checked before the upgrade, answered as a Status: the token (401), the path (404), the pod (404
 *   `pods "x" not found`), the container (400: required when the pod has several, `container x is
 *   not valid for pod y`), at least one `command` (400) and one of stdin/stdout/stderr (400), the
 *   container running (400, as the kubelet's `container not found`), a WebSocket upgrade (400).
 * - Subprotocols: `v5.channel.k8s.io`, `v4.channel.k8s.io`, `channel.k8s.io`, or none (as
 *   `channel.k8s.io`); a client offering only others gets 403 with the handshake's message, as
 *   golang.org/x/net/websocket refuses a failed handshake.
 * - Messages start with their channel: 0 stdin, 1 stdout, 2 stderr, 3 error; 4 (resize) is ignored.
 *   With v5, [255, 0] closes the command's stdin. At the end, v4 and v5 send a metav1.Status on 3
 *   (Success, or Failure with reason NonZeroExitCode and the ExitCode cause); channel.k8s.io sends
 *   the error's text only for a non-zero exit. Then the server closes the connection.
 * The command runs with Docker's exec in the container's current instance; stdin's end is the
 * hijacked connection's half-close. Both directions are paced (no whole stream is held).
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { Demuxer } from '../../../src/engines/docker/demux.js';
import type { ApiContext } from './api-context.js';
import { ApiError, badRequest, notFound, unauthorized, unknownPath } from './errors.js';

const EXEC_PATH = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/exec\/?$/;
const V5 = 'v5.channel.k8s.io';
const V4 = 'v4.channel.k8s.io';
const V1 = 'channel.k8s.io';
const SUPPORTED = [V5, V4, V1];
/** Bytes queued towards the client before the command's output is read no further. */
const HIGH_WATER = 1024 * 1024;

/** The WebSocket side of the double: `upgrade` for the HTTP server, `close` for shutdown. */
export class ExecEndpoint {
  readonly #supported: string[];
  readonly #server: WebSocketServer;
  readonly #open = new Set<Duplex>();

  /** `v5` false: the subprotocols of an API server before 1.30 (v4 the newest). */
  constructor(
    private readonly ctx: ApiContext,
    private readonly token: string | undefined,
    v5 = true,
  ) {
    const supported = v5 ? SUPPORTED : SUPPORTED.filter((p) => p !== V5);
    this.#supported = supported;
    this.#server = new WebSocketServer({
      noServer: true,
      perMessageDeflate: false,
      handleProtocols: (offered: Set<string>) => supported.find((p) => offered.has(p)) ?? false,
    });
  }

  /** Handles an upgrade request of the API server's HTTP server. */
  upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.#open.add(socket);
    socket.once('close', () => this.#open.delete(socket));
    let target: Target;
    try {
      target = this.#check(request);
    } catch (error) {
      if (!(error instanceof ApiError)) {
        this.ctx.reportError(error);
        return void socket.destroy();
      }
      return refuse(socket, error.status.code, JSON.stringify(error.status), 'application/json');
    }
    const offered = (request.headers['sec-websocket-protocol'] ?? '')
      .split(',')
      .map((p) => p.trim())
      .filter((p) => p !== '');
    if (offered.length > 0 && !offered.some((p) => this.#supported.includes(p)))
      return refuse(
        socket,
        403,
        `requested protocol(s) are not supported: [${offered.join(' ')}]; supports [${this.#supported.join(' ')}]`,
        'text/plain',
      );
    this.#server.handleUpgrade(request, socket, head, (ws) => {
      run(this.ctx, target, ws).catch((error: unknown) => {
        this.ctx.reportError(error);
        ws.terminate();
      });
    });
  }

  close(): void {
    for (const socket of this.#open) socket.destroy();
    this.#server.close();
  }

  #check(request: IncomingMessage): Target {
    if (this.token !== undefined && request.headers.authorization !== `Bearer ${this.token}`)
      throw unauthorized();
    const url = new URL(request.url ?? '/', 'http://double');
    const match = EXEC_PATH.exec(url.pathname);
    if (match === null) throw unknownPath();
    const [namespace, name] = [decodeURIComponent(match[1] ?? ''), decodeURIComponent(match[2] ?? '')];
    const pod = this.ctx.cluster.pod(namespace, name);
    if (pod === undefined) throw notFound('pods', name);
    const names = pod.spec.containers.map((c) => c.name);
    let container = url.searchParams.get('container') ?? '';
    if (container === '') {
      if (names.length !== 1)
        throw badRequest(
          `a container name must be specified for pod ${name}, choose one of: [${names.join(' ')}]`,
        );
      container = names[0] ?? '';
    }
    if (!names.includes(container)) throw badRequest(`container ${container} is not valid for pod ${name}`);
    const command = url.searchParams.getAll('command');
    if (command.length === 0) throw badRequest('you must specify at least 1 command');
    const flag = (key: string) => ['true', '1'].includes(url.searchParams.get(key) ?? '');
    const stdin = flag('stdin');
    if (!stdin && !flag('stdout') && !flag('stderr'))
      throw badRequest('you must specify at least 1 of stdin, stdout, stderr');
    const slot = this.ctx.kubelet.worker(pod.metadata.uid ?? '')?.runtime.slots.get(container);
    const current = slot?.current;
    if (slot === undefined || current === undefined || !slot.running)
      throw badRequest(`unable to upgrade connection: container not found ("${container}")`);
    if ((request.headers.upgrade ?? '').toLowerCase() !== 'websocket')
      throw badRequest('Upgrade request required');
    return { dockerId: current.dockerId, command, stdin };
  }
}

interface Target {
  dockerId: string;
  command: string[];
  stdin: boolean;
}

/** Runs the command with Docker's exec and carries its streams over the WebSocket. */
async function run(ctx: ApiContext, target: Target, ws: WebSocket): Promise<void> {
  const protocol = ws.protocol === '' ? V1 : ws.protocol;
  // What the client sends while Docker's exec is being made waits (the connection read no further).
  const early: Buffer[] = [];
  const hold = (data: Buffer) => early.push(data);
  ws.on('message', hold);
  ws.pause();
  const { execId, socket } = await ctx.engine.exec(target.dockerId, target.command, target.stdin);
  let waiting = false;
  const take = (data: Buffer) => {
    if (protocol === V5 && data[0] === 255 && data.length === 2) {
      if (data[1] === 0) {
        socket.end();
        // An ending stream emits no more 'drain': the connection must not stay paused for one.
        ws.resume();
      }
      return;
    }
    // Input after the command's end (or stdin's) goes nowhere, as on a real node.
    if (data[0] !== 0 || !target.stdin || socket.writableEnded || socket.destroyed) return;
    if (!socket.write(data.subarray(1)) && !waiting) {
      // One wait for 'drain' at a time: messages already read still come after a pause.
      waiting = true;
      ws.pause();
      socket.once('drain', () => {
        waiting = false;
        ws.resume();
      });
    }
  };
  ws.off('message', hold);
  for (const data of early) take(data);
  ws.on('message', take);
  ws.resume();
  // The client went away: the command's streams are cut (its writes then fail, and it ends).
  ws.on('close', () => socket.destroy());
  // The command's streams broke (it ended while input came): its exit is still told below.
  socket.on('error', () => undefined);
  ws.on('error', () => socket.destroy());
  const demuxer = new Demuxer((stream, payload) => {
    const channel = stream === 'stderr' ? 2 : 1;
    const frame = Buffer.concat([Buffer.of(channel), payload]);
    if (ws.bufferedAmount <= HIGH_WATER) return ws.send(frame);
    socket.pause();
    ws.send(frame, () => socket.resume());
  });
  socket.on('data', (chunk: Buffer) => demuxer.write(chunk));
  await new Promise<void>((resolve) => {
    socket.once('end', resolve);
    socket.once('close', resolve);
  });
  if (ws.readyState !== ws.OPEN) return;
  // Paused for a 'drain' that an ended stream never emits, it would not read the client's close.
  ws.resume();
  let exitCode: number | undefined;
  for (let i = 0; i < 50 && exitCode === undefined; i++) {
    exitCode = await ctx.engine.execExit(execId);
    if (exitCode === undefined) await new Promise((r) => setTimeout(r, 20));
  }
  const status = statusOf(protocol, target.command, exitCode ?? 1);
  if (status !== undefined) ws.send(Buffer.concat([Buffer.of(3), Buffer.from(status)]));
  ws.close(1000);
}

/** What the error channel says at the end for `protocol`; undefined when it says nothing. */
function statusOf(protocol: string, command: string[], exitCode: number): string | undefined {
  const message = `command terminated with non-zero exit code: error executing command [${command.join(' ')}], exit code ${exitCode}`;
  if (protocol === V1) return exitCode === 0 ? undefined : message;
  if (exitCode === 0) return JSON.stringify({ metadata: {}, status: 'Success' });
  return JSON.stringify({
    metadata: {},
    status: 'Failure',
    message,
    reason: 'NonZeroExitCode',
    details: { causes: [{ reason: 'ExitCode', message: String(exitCode) }] },
  });
}

function refuse(socket: Duplex, code: number, body: string, type: string): void {
  const reason = { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found' }[code];
  socket.end(
    `HTTP/1.1 ${code} ${reason ?? 'Error'}\r\nContent-Type: ${type}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
