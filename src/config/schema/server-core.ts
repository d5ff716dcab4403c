import { SERVER } from '../kinds.js';
import { list } from '../values/collections.js';
import { host, listenAddress, proxyAddress } from '../values/network.js';
import { boolean, oneOf, text } from '../values/scalars.js';
import { group, setting } from './define.js';

/** `http` or `https`: the protocol settings of server and runners. */
export const protocol = oneOf(['http', 'https'], 'a protocol');

/** Where the server is reached and how runners authenticate to it. */
export const serverCore = group(
  'Server: address and runner secret',
  'Where users and git providers reach the server, and the secret runners authenticate with.',
  [
    setting('SVC_SERVER_HOST', SERVER, host(true), {
      required: true,
      description:
        'The host name (with an optional port) under which users and git providers reach the server. svc builds webhook and OAuth redirect URLs from it; it does not change where the server listens (see SVC_SERVER_PORT).',
    }),
    setting('SVC_SERVER_PROTO', SERVER, protocol, {
      required: true,
      description:
        'The protocol of the user-facing address, http or https. With https, session cookies are marked Secure.',
    }),
    setting('SVC_SERVER_PORT', SERVER, listenAddress, {
      default: ':8080',
      addition: true,
      description:
        'Where the server listens for HTTP: a port (8080, :8080) or an interface and port (127.0.0.1:8080, [::1]:8080). The spec leaves the listen address open; svc adds this setting for it.',
    }),
    setting('SVC_SERVER_TRUSTED_PROXIES', SERVER, list(proxyAddress), {
      addition: true,
      description:
        "The addresses of reverse proxies and load balancers in front of the server (IP addresses, CIDR ranges, or loopback, linklocal, uniquelocal). A request that comes from one of them is taken to come from the client its X-Forwarded-For header names, so that rate limits count each client behind the proxy; from any other address the header is ignored, so that clients cannot choose the address they are counted under. Empty: every request comes from its connection's address.",
    }),
    setting('SVC_SERVER_PROXY_HOST', SERVER, host(true), {
      description:
        'An alternate public host used in webhook URLs instead of SVC_SERVER_HOST, for servers behind a firewall whose git provider webhooks must pass through a public proxy. Set it together with SVC_SERVER_PROXY_PROTO.',
    }),
    setting('SVC_SERVER_PROXY_PROTO', SERVER, protocol, {
      description:
        'The protocol of SVC_SERVER_PROXY_HOST, http or https. Set it together with SVC_SERVER_PROXY_HOST.',
    }),
    setting('SVC_RPC_SECRET', SERVER, text('a shared secret, the same value as on every runner'), {
      required: true,
      secret: true,
      description:
        'The shared secret runners present to the server (in the X-SVC-Token header). Server and runners must hold the same value. Whoever has it can take builds, with their secrets, as a runner: the server warns at start about one shorter than 32 characters (`openssl rand -hex 16` makes one). A runner may instead present its own runner token in its SVC_RPC_SECRET (svc runner token create).',
    }),
    setting('SVC_RPC_SECRET_DISABLED', SERVER, boolean, {
      default: false,
      addition: true,
      description:
        "When true, the server refuses the shared SVC_RPC_SECRET: every runner must present its own runner token (`svc runner token create NAME`, which an administrator makes; the runner puts it in its own SVC_RPC_SECRET). Drone's runners work with runner tokens too. The in-process runner (SVC_RUNNER_LOCAL) has a secret of its own and is not affected.",
    }),
  ],
);
