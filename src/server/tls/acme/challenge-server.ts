import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { http } from '../../../platform/node-http.js';

const CHALLENGE_PATH = '/.well-known/acme-challenge/';

/**
 * The plain-HTTP side of SVC_TLS_AUTOCERT, on port 80: answers the CA's HTTP-01 challenges and
 * sends every other request to the same path over HTTPS at the user-facing address.
 */
export class ChallengeServer {
  readonly #answers = new Map<string, string>();
  readonly #server: Server;
  readonly #httpsBase: string;

  constructor(httpsBase: string) {
    this.#httpsBase = httpsBase;
    this.#server = http.createServer((request, response) => this.#handle(request, response));
  }

  listen(host: string, port: number): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen({ host, port }, () => {
        this.#server.off('error', reject);
        resolve();
      });
    });
  }

  answer(token: string, keyAuthorization: string): void {
    this.#answers.set(token, keyAuthorization);
  }

  forget(token: string): void {
    this.#answers.delete(token);
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
  }

  #handle(request: IncomingMessage, response: ServerResponse): void {
    const path = request.url ?? '/';
    if (path.startsWith(CHALLENGE_PATH)) {
      const answer = this.#answers.get(path.slice(CHALLENGE_PATH.length));
      response.writeHead(answer === undefined ? 404 : 200, { 'content-type': 'text/plain' });
      response.end(answer ?? 'no such challenge\n');
      return;
    }
    // Only a path, never a host of the request's choosing, so this cannot redirect elsewhere.
    const safePath = path.startsWith('/') && !path.startsWith('//') ? path : '/';
    response.writeHead(301, { location: `${this.#httpsBase}${safePath}` });
    response.end();
  }
}
