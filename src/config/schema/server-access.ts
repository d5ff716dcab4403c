import { SERVER } from '../kinds.js';
import { list } from '../values/collections.js';
import { duration } from '../values/duration.js';
import { boolean, text } from '../values/scalars.js';
import { userCreate } from '../values/user-create.js';
import { group, setting } from './define.js';

const HOUR = 3_600_000;
const SECOND = 1_000;

/** Who may log in, the account seeded at start-up, and session cookies. */
export const serverAccess = group(
  'Server: access, registration and users',
  'Who may log in, the account created at start-up, and the session cookie.',
  [
    setting('SVC_REGISTRATION_CLOSED', SERVER, boolean, {
      description:
        'When true, users cannot register themselves by logging in: an administrator must create their accounts first.',
    }),
    setting('SVC_USER_CREATE', SERVER, userCreate, {
      secret: true,
      description:
        "An account created at start-up, typically the first administrator: username:<name>,machine:<true|false>,admin:<true|false>,token:<token>. A person's account uses their git provider login as username; a machine account (machine:true) needs a token of exactly 32 characters, e.g. from `openssl rand -hex 16`, which becomes its API token. Only the token is secret.",
    }),
    setting('SVC_USER_FILTER', SERVER, list(), {
      description:
        'Limits registration to the named users and to members of the named organizations. Anyone else fails to log in with "Login Failed. User must be a member of an approved organization."',
    }),
    setting('SVC_REPOSITORY_FILTER', SERVER, list(), {
      description:
        'Limits repository synchronization to the named accounts (users or organizations). Set it before the first login: it has no effect on accounts that have already synchronized.',
    }),
    setting('SVC_COOKIE_SECRET', SERVER, text('a long random string'), {
      secret: true,
      defaultDoc:
        'none: the server generates a random secret at each start, which logs everyone out on restart',
      description: 'The key signing session cookies. Set it to keep users logged in across server restarts.',
    }),
    setting('SVC_COOKIE_TIMEOUT', SERVER, duration(SECOND), {
      default: 72 * HOUR,
      description: 'How long a session cookie stays valid after login.',
    }),
  ],
);

/** The reaper and the cron scheduler. */
export const serverScheduling = group(
  'Server: scheduling and reaper',
  'The reaper kills jobs stuck in pending or running; the cron scheduler starts builds of repository cron jobs.',
  [
    setting('SVC_CLEANUP_DISABLED', SERVER, boolean, {
      default: false,
      description: 'Turns the reaper off. The reaper kills zombie jobs stuck in pending or running.',
    }),
    setting('SVC_CLEANUP_INTERVAL', SERVER, duration(SECOND), {
      default: 24 * HOUR,
      description: 'How often the reaper runs.',
    }),
    setting('SVC_CLEANUP_DEADLINE_PENDING', SERVER, duration(SECOND), {
      default: 24 * HOUR,
      description: 'Age after which the reaper kills a job that is still pending.',
    }),
    setting('SVC_CLEANUP_DEADLINE_RUNNING', SERVER, duration(SECOND), {
      default: 24 * HOUR,
      description: 'Age after which the reaper kills a job that is still running.',
    }),
    setting('SVC_RUNNER_LOCAL', SERVER, boolean, {
      default: false,
      addition: true,
      description:
        'svc addition: also runs a Docker runner inside the server process (named `local`, on the Docker engine of DOCKER_HOST or the default socket), taking stages over loopback, so that one process builds. `svc server --local` (`npm start`) turns it on unless it is set; when no Docker engine answers, the server starts without it and says so.',
    }),
    setting('SVC_CRON_DISABLED', SERVER, boolean, {
      default: false,
      description: 'Turns the cron scheduler off.',
    }),
    setting('SVC_CRON_INTERVAL', SERVER, duration(SECOND), {
      default: HOUR,
      description:
        'How often the cron scheduler starts the cron jobs that are due. Scheduling is deliberately inexact: a job runs at the first check after its time, also with shorter intervals.',
    }),
  ],
);
