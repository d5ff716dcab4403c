/** The runner protocol (rpc v2) of the server: docs/runners.md. */
export { registerRpcRoutes } from './register.js';
export type { RpcDeps, RpcSystem, RpcTimeouts } from './deps.js';
export { TOKEN_HEADERS } from './auth.js';
export { isFromFork, secretsForBuild } from './secrets.js';
