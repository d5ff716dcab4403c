import { readFileSync } from 'node:fs';

/**
 * The variables of an env file (SVC_RUNNER_ENV_FILE): `NAME=value` lines; blank lines and lines
 * starting with `#` are skipped, an optional `export ` is dropped, and a value in matching single
 * or double quotes loses them. Throws with the line number for a line that is none of these.
 */
export function readEnvFile(path: string): Record<string, string> {
  const variables: Record<string, string> = {};
  readFileSync(path, 'utf8')
    .split(/\r?\n/)
    .forEach((raw, index) => {
      const line = raw.trim();
      if (line === '' || line.startsWith('#')) return;
      const match = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
      if (!match) throw new Error(`${path}, line ${index + 1}: expected NAME=value, got "${line}"`);
      const value = match[2] ?? '';
      const quoted = /^(["'])(.*)\1$/.exec(value);
      variables[match[1] ?? ''] = quoted ? (quoted[2] ?? '') : value;
    });
  return variables;
}
