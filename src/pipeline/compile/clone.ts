import type { BuildFacts } from './input.js';
import { posixScript, shellQuote } from './script.js';
import type { CloneSettings } from '../types.js';

/** The clone image when the runner names none (SVC_RUNNER_CLONE_IMAGE / SVC_IMAGE_CLONE). */
export const DEFAULT_CLONE_IMAGE = 'svc/git';

/**
 * Parameters of the clone step besides the run's variables. A clone image reads the repository from
 * `DRONE_REMOTE_URL`, the commit from `DRONE_COMMIT_SHA`, `DRONE_COMMIT_REF` and `DRONE_COMMIT_BRANCH`,
 * credentials from `DRONE_NETRC_*`, and these (the drone/git plugin's names): `PLUGIN_DEPTH`,
 * `PLUGIN_RETRIES`, `PLUGIN_SKIP_VERIFY` (with git's own `GIT_SSL_NO_VERIFY`), and `GIT_TRACE`.
 */
export function cloneParameters(clone: CloneSettings): Record<string, string> {
  const envs: Record<string, string> = {};
  if (clone.depth > 0) envs.PLUGIN_DEPTH = String(clone.depth);
  if (clone.retries > 0) envs.PLUGIN_RETRIES = String(clone.retries);
  if (clone.skipVerify) {
    envs.PLUGIN_SKIP_VERIFY = 'true';
    envs.GIT_SSL_NO_VERIFY = 'true';
  }
  if (clone.trace) envs.GIT_TRACE = 'true';
  return envs;
}

/**
 * A git credential helper that answers with the clone credentials of the step's variables: on a
 * host, credentials must not be written to the user's `~/.netrc` (which they may have, and which
 * would outlive the build). Only the variables' names are in the repository's config, never values.
 */
const CREDENTIAL_HELPER = `!f() { test "$1" = get && printf 'username=%s\\npassword=%s\\n' "$DRONE_NETRC_USERNAME" "$DRONE_NETRC_PASSWORD"; }; f`;

/**
 * The clone step of pipelines that run on a host (ssh, exec, macstadium), which have no clone image:
 * git commands reading the same variables, fetching the branch, tag or pull request as Drone does.
 * Credentials, when given, reach git through a credential helper for the clone's machine, from the
 * variables: never written to a file, never in the script.
 */
export function hostCloneScript(build: BuildFacts, clone: CloneSettings): string {
  const depth = clone.depth > 0 ? ` --depth=${clone.depth}` : '';
  const commands = [
    'git init -q',
    'git remote add origin "$DRONE_REMOTE_URL"',
    `if [ -n "\${DRONE_NETRC_MACHINE:-}" ]; then git config "credential.https://$DRONE_NETRC_MACHINE.helper" ${shellQuote(CREDENTIAL_HELPER)}; git config "credential.http://$DRONE_NETRC_MACHINE.helper" ${shellQuote(CREDENTIAL_HELPER)}; fi`,
  ];
  if (build.ref.startsWith('refs/tags/')) {
    commands.push(`git fetch${depth} origin "+$DRONE_COMMIT_REF:"`, 'git checkout -qf FETCH_HEAD');
  } else if (build.event === 'pull_request') {
    commands.push(
      `git fetch${depth} origin "+refs/heads/$DRONE_COMMIT_BRANCH:"`,
      'git checkout "$DRONE_COMMIT_BRANCH"',
      'git fetch origin "$DRONE_COMMIT_REF:"',
      'git merge "$DRONE_COMMIT_SHA"',
    );
  } else {
    commands.push(
      `git fetch${depth} origin "+refs/heads/$DRONE_COMMIT_BRANCH:"`,
      'git checkout "$DRONE_COMMIT_SHA" -b "$DRONE_COMMIT_BRANCH"',
    );
  }
  return posixScript(commands);
}
