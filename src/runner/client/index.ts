/** The runner's HTTP client of the protocol (rpc v2) and the protocol's JSON: docs/runners.md. */
export { RpcClient, type RpcClientOptions } from './client.js';
export { isConflict, isRetriable, RpcError } from './errors.js';
export { dumpingTransport, type DumpSink } from './dump.js';
export {
  httpTransport,
  insecureHttpsTransport,
  type HttpRequest,
  type HttpResponse,
  type HttpTransport,
} from './transport.js';
export * from './wire/index.js';
