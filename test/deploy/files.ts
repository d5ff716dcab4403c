/*
 * The deployment files of deploy/ as tests read them: paths, YAML documents, KEY=VALUE env files,
 * and the check that an environment is one svc accepts without a problem or a warning.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { loadSettings, type Env, type LoadedSettings, type SettingsKind } from '../../src/config/index.js';
import { InvalidSettingsError } from '../../src/core/errors.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const DEPLOY = join(ROOT, 'deploy');

/** svc's version: the tag every deploy file gives svc's images. */
export const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string })
  .version;

/** Every file under deploy/, as paths relative to the repository. */
export function deployFiles(dir = DEPLOY): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? deployFiles(join(dir, entry.name)) : [relative(ROOT, join(dir, entry.name))],
  );
}

/** The documents of a YAML file; a syntax error fails with the file's name and the parser's message. */
export function yamlDocuments(path: string): unknown[] {
  return parseAllDocuments(readFileSync(path, 'utf8')).map((doc) => {
    if (doc.errors.length > 0) throw new Error(`${path}: ${doc.errors.map((e) => e.message).join('; ')}`);
    return doc.toJS() as unknown;
  });
}

/** The KEY=VALUE lines of an env file (systemd's EnvironmentFile, compose's .env); comments skipped. */
export function envFile(path: string): Record<string, string> {
  const entries = readFileSync(path, 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const at = line.indexOf('=');
      if (at <= 0) throw new Error(`${path}: not KEY=VALUE: ${line}`);
      return [line.slice(0, at), line.slice(at + 1)] as const;
    });
  return Object.fromEntries(entries);
}

/**
 * Loads the settings of `kind` from `env` as svc does at start; throws with every problem, or with
 * the warnings (a name the kind ignores, say), so that a deploy file cannot set anything svc ignores.
 */
export function loadCleanly<K extends SettingsKind>(kind: K, env: Env): LoadedSettings<K> {
  let loaded: LoadedSettings<K>;
  try {
    loaded = loadSettings(kind, env, { cwd: ROOT });
  } catch (error) {
    if (!(error instanceof InvalidSettingsError)) throw error;
    const problems = error.problems.map((p) => `${p.setting}: ${p.message}`).join('\n');
    throw new Error(`the ${kind} settings are refused:\n${problems}`, { cause: error });
  }
  if (loaded.warnings.length > 0) {
    const warnings = loaded.warnings.map((w) => `${w.setting}: ${w.message}`).join('\n');
    throw new Error(`the ${kind} settings draw warnings:\n${warnings}`);
  }
  return loaded;
}

/** Sample values for the secrets that operators make with `openssl rand -hex 32`. */
export function hexSecret(): string {
  return randomBytes(32).toString('hex');
}
