import type { ServerSettings } from '../../config/index.js';

/** The shortest SVC_RPC_SECRET that starts without a warning: 128 bits as hex. */
export const MIN_RPC_SECRET = 32;

type WarnedSettings = Pick<
  ServerSettings,
  'SVC_RPC_SECRET' | 'SVC_REGISTRATION_CLOSED' | 'SVC_USER_FILTER' | 'SVC_COOKIE_SECRET'
>;

/**
 * What an operator should change before users arrive, said at every start: defaults that are fine on
 * a laptop and unsafe or surprising in production (the spec keeps registration open by default, as
 * Drone does). `login`: a git provider is configured, so anyone at it can log in; `shared`: several
 * servers may share the database (not SQLite).
 */
export function startupWarnings(
  settings: WarnedSettings,
  setup: { login: boolean; shared: boolean },
): string[] {
  const warnings: string[] = [];
  if (settings.SVC_RPC_SECRET.length < MIN_RPC_SECRET) {
    warnings.push(
      `SVC_RPC_SECRET has ${settings.SVC_RPC_SECRET.length} characters: whoever guesses it can take builds, with their secrets, as a runner; use at least ${MIN_RPC_SECRET} random ones (openssl rand -hex 16)`,
    );
  }
  const filtered = (settings.SVC_USER_FILTER ?? []).length > 0;
  if (setup.login && settings.SVC_REGISTRATION_CLOSED !== true && !filtered) {
    warnings.push(
      'registration is open: anyone with an account at the git provider can log in, enable a repository and run its pipelines on your runners; set SVC_USER_FILTER to your users and organizations, or SVC_REGISTRATION_CLOSED=true (administrators create accounts; SVC_USER_CREATE seeds the first)',
    );
  }
  if (settings.SVC_COOKIE_SECRET === null) {
    const servers = setup.shared ? ', and a login on one server is not valid on the others' : '';
    warnings.push(
      `SVC_COOKIE_SECRET is not set: a random one is made at each start, so every restart logs everyone out${servers}; set it to a long random string (openssl rand -hex 32)`,
    );
  }
  return warnings;
}
