/**
 * # MacStadium Orka double (Orka3 REST API, Orka 3.x)
 *
 * A real HTTP server on 127.0.0.1 (random port) answering the Orka3 API that svc's VM runner uses, with
 * in-memory state, built from public sources only (docs.macstadium.com's Orka3 API quick start and 2.4.x →
 * 3.0.0 API mapping, the API reference at macstadium.github.io/orka-api-docs, MacStadium's Jenkins,
 * TeamCity and GitHub Actions clients; facts and sources in /tmp/research/orka.md):
 *
 * - Auth: `Authorization: Bearer <token>` on every VM call, else 401 `{"message":"Unauthorized"}`.
 * - `POST /api/v1/namespaces/orka-default/vms` `{image, cpu?, name?, shouldGenerateName?, …}`: deploys
 *   synchronously (after `deployDelayMs`, during which the VM lists as `Pending`) and answers
 *   `{name, node, memory, ip, ssh, vnc, screenshare, status: "Running"}`. Each VM is a real OpenSSH daemon
 *   (test/support/sshd.ts) on its own loopback port: `ip` 127.0.0.1, `ssh` its port; it accepts the sshd
 *   test account's password (`vmUser`), so steps really run. Unknown images, taken or invalid names and
 *   `failDeploys` fail as in routes.ts.
 * - `GET …/vms` (`{items: [...]}`), `GET …/vms/{name}`, `DELETE …/vms/{name}` (stops the VM's sshd).
 * - `GET /api/v1/cluster-info` (no token).
 *
 * Not modelled: VM configs (`vmConfig`), images/nodes/namespaces endpoints, namespaces other than
 * `orka-default` (403), token expiry, VNC/Screen Sharing (their ports are placeholders), the server-side
 * deploy `timeout`, power operations. Unknown paths answer gin's plain `404 page not found` and are
 * recorded in `unknownCalls`, as are deploy fields the Orka3 clients never send.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { route, type Reply } from './routes.js';
import { OrkaState, type RecordedRequest } from './state.js';

export interface OrkaDouble {
  /** SVC_VMHOST_ENDPOINT */
  readonly url: string;
  /** A valid SVC_VMHOST_TOKEN (a service account token). */
  readonly token: string;
  /** Images that exist (deploying another one fails with 400 `Image <name> not found`). */
  readonly images: string[];
  /** VMs that exist now: name, image, cpu, ip, ssh port (0 while still `Pending`). */
  vms(): { name: string; image: string; cpu: number; ip: string; sshPort: number }[];
  /** The VM user/password the images accept (the sshd test account). */
  readonly vmUser: { username: string; password: string };
  /** The next `count` deploys fail with `status` and `{"message": message}` (e.g. 409 quota, 400, 500). */
  failDeploys(count: number, status: number, message: string): void;
  /** Every request, oldest first: method, path (with query) and its JSON body. */
  requests(): RecordedRequest[];
  unknownCalls(): readonly string[];
  /** Closes the server and stops every VM's sshd. */
  close(): Promise<void>;
}

export async function startOrkaDouble(
  options: { images?: string[]; deployDelayMs?: number } = {},
): Promise<OrkaDouble> {
  const images = options.images ?? ['ghcr.io/macstadium/orka-images/sequoia:latest'];
  const state = new OrkaState(images, options.deployDelayMs ?? 0);
  const token = `orka-sa-${randomBytes(16).toString('hex')}`;
  const server = createServer((req, res) => {
    serve(state, token, req, res).catch((error: unknown) => {
      send(res, { status: 500, body: { message: error instanceof Error ? error.message : String(error) } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    images,
    vms: () =>
      [...state.vms.values()].map((vm) => ({
        name: vm.name,
        image: vm.image,
        cpu: vm.cpu,
        ip: vm.sshd?.host ?? '',
        sshPort: vm.status === 'Running' ? (vm.sshd?.port ?? 0) : 0,
      })),
    vmUser: {
      username: process.env.SVC_TEST_SSH_USER ?? 'svc-ssh-test',
      password: process.env.SVC_TEST_SSH_PASSWORD ?? '',
    },
    failDeploys: (count, status, message) => state.failNext(count, status, message),
    requests: () => state.requests.map((request) => ({ ...request })),
    unknownCalls: () => [...state.unknown],
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await state.deleteAll();
    },
  };
}

async function serve(state: OrkaState, token: string, req: IncomingMessage, res: ServerResponse) {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  const url = new URL(req.url ?? '/', 'http://double');
  const method = req.method ?? 'GET';
  let body: unknown = undefined;
  if (text !== '') {
    try {
      body = JSON.parse(text);
    } catch {
      body = text; // not JSON: a deploy answers 400 (its body must be a JSON object)
    }
  }
  const authorization = req.headers.authorization;
  state.requests.push({ method, path: url.pathname + url.search, body, authorization });
  send(res, await route(state, token, { method, path: url.pathname, body, authorization }));
}

function send(res: ServerResponse, reply: Reply): void {
  if (res.headersSent) return;
  if (reply.body === undefined) {
    res.writeHead(reply.status, { 'content-length': '0' }).end();
  } else if (typeof reply.body === 'string') {
    res.writeHead(reply.status, { 'content-type': 'text/plain; charset=utf-8' }).end(reply.body);
  } else {
    res.writeHead(reply.status, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify(reply.body));
  }
}
