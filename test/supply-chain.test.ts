/**
 * Supply chain (issue 15): what `npm ci` installs is the lock file's, install scripts run only for
 * packages package.json allows by name (npm 11's allowScripts, so that an npm that blocks unlisted
 * scripts still installs svc), and every production dependency has a licence svc can ship with.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  allowScripts?: Record<string, boolean>;
  dependencies: Record<string, string>;
  optionalDependencies?: Record<string, string>;
};
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { version?: string; dev?: boolean; hasInstallScript?: boolean; license?: string }>;
};

/** Permissive licences (SPDX ids) whose terms an Apache-2.0 service can ship under. */
const ALLOWED = new Set([
  'MIT',
  'ISC',
  'Apache-2.0',
  'BSD-2-Clause',
  'BSD-3-Clause',
  '0BSD',
  'BlueOak-1.0.0',
  'Unlicense',
  'CC0-1.0',
  'PSF-2.0',
  'Python-2.0',
]);

/** Whether an SPDX expression is satisfied by allowed licences (OR: one side; AND: both). */
function licenceAllowed(expression: string): boolean {
  const text = expression.trim().replace(/^\((.*)\)$/, '$1');
  if (/ OR /.test(text)) return text.split(/ OR /).some(licenceAllowed);
  if (/ AND /.test(text)) return text.split(/ AND /).every(licenceAllowed);
  return ALLOWED.has(text);
}

function installedLicence(path: string): string | undefined {
  const file = join(ROOT, path, 'package.json');
  if (!existsSync(file)) return undefined;
  const pkg = JSON.parse(readFileSync(file, 'utf8')) as {
    license?: string | { type: string };
    licenses?: { type: string }[];
  };
  if (typeof pkg.license === 'string') return pkg.license;
  if (pkg.license !== undefined) return pkg.license.type;
  return pkg.licenses?.map((l) => l.type).join(' OR ');
}

const nameOf = (path: string): string =>
  path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);

describe('supply chain', () => {
  it('allows install scripts by name, for exactly the packages of the lock file that have them', () => {
    // npm runs `node-gyp rebuild` for a package with a binding.gyp and no install script of its own.
    const withScripts = Object.entries(lock.packages)
      .filter(
        ([path, entry]) =>
          path !== '' && (entry.hasInstallScript === true || existsSync(join(ROOT, path, 'binding.gyp'))),
      )
      .map(([path]) => nameOf(path));
    expect([...new Set(withScripts)].sort()).toEqual(Object.keys(manifest.allowScripts ?? {}).sort());
  });

  it('ships only production dependencies under permissive licences', () => {
    const refused = Object.entries(lock.packages)
      .filter(([path, entry]) => path !== '' && entry.dev !== true)
      .flatMap(([path]) => {
        const licence = installedLicence(path);
        // An optional dependency that did not install (no compiler, another platform) ships nothing.
        if (licence === undefined) return [];
        return licenceAllowed(licence) ? [] : [`${nameOf(path)}: ${licence}`];
      });
    expect(refused).toEqual([]);
  });

  it('reads SPDX expressions', () => {
    expect(licenceAllowed('(BSD-3-Clause OR GPL-2.0)')).toBe(true);
    expect(licenceAllowed('MIT AND Apache-2.0')).toBe(true);
    expect(licenceAllowed('GPL-3.0')).toBe(false);
    expect(licenceAllowed('MIT AND GPL-3.0')).toBe(false);
  });
});
