import { runners } from '../kinds.js';
import { host, listenAddress } from '../values/network.js';
import { boolean, oneOf, text } from '../values/scalars.js';
import { group, setting } from './define.js';
import { protocol } from './server-core.js';

const ALL = runners('C', 'J', 'V', 'K', 'R');

/** Logging, the connection to the server, and the runner's own HTTP listener. */
export const runnerConnection = group(
  'Runners: logging and connection',
  'How every runner logs, reaches the server, and listens for its own HTTP requests (health checks, dashboard).',
  [
    setting('SVC_DEBUG', ALL, boolean, { description: 'Logs at debug level.' }),
    setting('SVC_TRACE', ALL, boolean, { description: 'Logs at trace level, more than debug.' }),
    setting('SVC_RPC_HOST', ALL, host(true), {
      required: true,
      description:
        'Host of the server, with an optional port and no scheme, e.g. ci.example.com or ci.example.com:8080.',
    }),
    setting('SVC_RPC_PROTO', ALL, protocol, {
      required: true,
      description: 'Protocol to reach the server with, http or https.',
    }),
    setting('SVC_RPC_SECRET', ALL, text("the shared secret, the same value as the server's"), {
      required: true,
      secret: true,
      description:
        "The shared secret authenticating the runner to the server; the server's SVC_RPC_SECRET must hold the same value.",
    }),
    setting('SVC_RPC_SKIP_VERIFY', ALL, boolean, {
      description: 'Skips TLS certificate verification towards the server. Unsafe.',
    }),
    setting('SVC_RPC_DUMP_HTTP', ALL, boolean, {
      description:
        'Logs the HTTP requests to and responses from the server, to debug runner-to-server connectivity.',
    }),
    setting('SVC_RPC_DUMP_HTTP_BODY', ALL, boolean, {
      description: 'Also logs the bodies of those requests and responses, for the same purpose.',
    }),
    setting('SVC_HTTP_BIND', ALL, listenAddress, {
      default: ':3000',
      description: "Where the runner's HTTP listener listens. Changing it is not recommended.",
    }),
    setting('SVC_HTTP_HOST', ALL, text('a host name'), {
      default: '',
      description:
        "The host name the runner's HTTP listener answers to; empty means any. Changing it is not recommended.",
    }),
    setting('SVC_HTTP_PROTO', ALL, oneOf(['http', 'https'], 'a protocol'), {
      default: 'http',
      description: "The protocol of the runner's HTTP listener. Changing it is not recommended.",
    }),
    setting('SVC_SSH_KNOWN_HOSTS', runners('R'), text('the path of a known_hosts file'), {
      defaultDoc: '~/.ssh/known_hosts of the user the runner runs as',
      addition: true,
      description:
        "svc addition: the OpenSSH known_hosts file the ssh runner (and svc exec of ssh pipelines) verifies hosts' keys against (the vm runner's VMs are new every time: their keys are trusted for their stage). A host not listed there is trusted on first use: its key is written to the build log and remembered in ~/.svc/ssh_known_hosts, and a later different key fails the stage.",
    }),
  ],
);
