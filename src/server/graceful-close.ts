import type { FastifyInstance } from 'fastify';

/**
 * Lets a closing server end quickly behind a load balancer. `close()` closes the connections idle
 * at that moment, but one still answering a request (a long-poll answered as the server closes, a
 * report) stays open once its answer is sent: the balancer keeps it for reuse, and the server's
 * close waited for the balancer's keep-alive timeout (10 s behind haproxy's defaults, 15 s to stop
 * a server of a cluster, issue 31). From the start of the close, every answer says
 * `Connection: close`, so each such connection ends with its answer. An answer whose headers left
 * before the close (a download streamed from a file) can no longer say so: its connection is ended
 * once that answer has been sent, or the close waited for Fastify's 72 s keep-alive timeout.
 */
export function closeConnectionsAfterAnswers(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) void reply.header('connection', 'close');
    done(null, payload);
  });
  app.addHook('onResponse', (request, _reply, done) => {
    // `destroySoon` ends the socket once what is written has left, so the answer arrives whole.
    if (closing && !request.raw.socket.destroyed) request.raw.socket.destroySoon();
    done();
  });
}
