import type { ExecMount, ExecVolume } from '../../core/engine.js';
import { DEBUG_SHELL_MARK } from '../../core/log.js';
import { posixScript } from './script.js';

/**
 * SHELLSHARE (tmate) for debug builds, as the Docker runner offers it (SVC_SHELLSHARE_*): where
 * the relay is (empty host: tmate's own defaults) and the Docker volume holding svc's tmate bundle.
 */
export interface ShellShare {
  readonly host: string;
  readonly port: number | null;
  readonly fingerprintRsa: string;
  readonly fingerprintEd25519: string;
  /** A Docker volume with the tmate bundle (binary, its libraries and loader; see docs/runners.md). */
  readonly volume: string;
}

/** Where steps of a debug build find tmate; the bundle runs in any Linux image with a /bin/sh. */
export const TMATE_DIR = '/usr/drone/tmate';
const TMATE_VOLUME = 'svc-debug-shell';

/** The stage's volume holding the bundle, mounted read-only into every step with commands. */
export function debugShellVolume(share: ShellShare): ExecVolume {
  // A Docker bind whose source is a volume name mounts that named volume.
  return { kind: 'host', name: TMATE_VOLUME, path: share.volume };
}

export const DEBUG_SHELL_MOUNT: ExecMount = { name: TMATE_VOLUME, path: TMATE_DIR, readOnly: true };

/** tmate's configuration for the relay; nothing for tmate's defaults. */
function tmateConfig(share: ShellShare): string[] {
  if (share.host === '') return [];
  const quoted = (value: string): string => `"${value.replace(/[\\"$]/g, (c) => `\\${c}`)}"`;
  return [
    `set -g tmate-server-host ${quoted(share.host)}`,
    ...(share.port === null ? [] : [`set -g tmate-server-port ${share.port}`]),
    ...(share.fingerprintRsa === ''
      ? []
      : [`set -g tmate-server-rsa-fingerprint ${quoted(share.fingerprintRsa)}`]),
    ...(share.fingerprintEd25519 === ''
      ? []
      : [`set -g tmate-server-ed25519-fingerprint ${quoted(share.fingerprintEd25519)}`]),
  ];
}

/**
 * The step's script for a debug build: the commands as always, and when one fails, a tmate session
 * in the still-running container (`tmate -F` prints the ssh and web connect strings into the log
 * and stays until the session ends; the stage's timeout ends it otherwise). The step then fails
 * with the command's own exit code.
 */
export function debugShellScript(commands: readonly string[], share: ShellShare): string {
  const config = tmateConfig(share);
  return [
    'svc_debug_shell() {',
    '  svc_status=$?',
    '  trap - EXIT',
    '  if [ "$svc_status" -ne 0 ]; then',
    `    printf '%s\\n' "+ exit code $svc_status: this is a debug build, so a tmate session starts; the step waits until it ends or the stage times out"`,
    '    svc_tmate_conf="${TMPDIR:-/tmp}/svc-tmate.conf"',
    '    cat > "$svc_tmate_conf" <<\'SVC_TMATE_CONF\'',
    ...config,
    'SVC_TMATE_CONF',
    // Every line tmate prints (the connection strings among them) carries the mark, so that the
    // server shows them only to users with write access (core/log.ts DEBUG_SHELL_MARK).
    `    ${TMATE_DIR}/tmate -f "$svc_tmate_conf" -F 2>&1 | while IFS= read -r svc_line; do printf '%s%s\\n' '${DEBUG_SHELL_MARK}' "$svc_line"; done`,
    '  fi',
    '  exit "$svc_status"',
    '}',
    'trap svc_debug_shell EXIT',
    '',
    posixScript(commands),
  ].join('\n');
}
