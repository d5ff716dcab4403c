import type * as Http from 'node:http';
import type * as Https from 'node:https';
import { createRequire } from 'node:module';

// Loaded with require, not import: an ESM import of node:http reads every export of the module,
// and its lazy getters (WebSocket, …) then load Node's bundled undici — measured ~60 ms against
// ~6 ms for require on this machine, paid by every svc command that touches HTTP at start.
const require = createRequire(import.meta.url);

/** Node's `node:http`, loaded without its lazy web exports. */
export const http = require('node:http') as typeof Http;
/** Node's `node:https`, loaded the same way as `http`. */
export const https = require('node:https') as typeof Https;
