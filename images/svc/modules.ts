// Copies into the image only the node_modules the bundle leaves to Node's loader
// (images/svc/externals.json: native addons, worker-starting packages, the large SDKs) and what
// they need at run time, per package-lock.json; everything else is inside dist/bundle. Of those
// packages it keeps what runs: not TypeScript declarations, source maps, docs, tests, nor the C/C++
// sources and build leftovers of native addons (only their compiled .node files).
// Usage: node images/svc/modules.ts ROOT APP LIBDIR — ROOT holds package-lock.json and node_modules
// (after `npm ci`), APP is the image's /opt/svc, LIBDIR a folder the dynamic loader searches (the
// image's /usr/lib): an addon's own shared libraries go there (see pruneBuild). Plain JavaScript: it
// runs before anything is compiled, with Node's own type stripping (no imports of svc's code).
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { basename, join } from 'node:path';

const [root = '', app = '', libdir = ''] = process.argv.slice(2);
if (root === '' || app === '' || libdir === '') {
  console.error('usage: node images/svc/modules.ts ROOT APP LIBDIR');
  process.exit(2);
}

/** A package of package-lock.json (`packages["node_modules/…"]`): what it depends on. */
interface LockedPackage {
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

const readJson = (file: string | URL): unknown => JSON.parse(readFileSync(file, 'utf8'));
const { packages } = readJson(join(root, 'package-lock.json')) as { packages: Record<string, LockedPackage> };
const manifest = readJson(join(root, 'package.json')) as {
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
};
const patterns = readJson(new URL('externals.json', import.meta.url)) as string[];

/** Whether a package name matches an external of the bundle (`@aws-sdk/*` matches the scope). */
const external = (name: string): boolean =>
  patterns.some((p) => (p.endsWith('/*') ? name.startsWith(p.slice(0, -1)) : name === p));

/** Where Node finds `name` from the package at `from` (lockfile paths), as its loader walks up. */
function resolve(from: string, name: string): string | undefined {
  let base = from;
  for (;;) {
    const candidate = `${base === '' ? '' : `${base}/`}node_modules/${name}`;
    if (packages[candidate] !== undefined) return candidate;
    if (base === '') return undefined;
    const up = base.lastIndexOf('/node_modules/');
    base = up < 0 ? '' : base.slice(0, up);
  }
}

// The roots: svc's own dependencies the bundle leaves out; pg-native and others not installed are
// optional (their users fall back without them).
const roots = Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies }).filter(external);
const kept = new Set<string>();
const queue = roots.map((name) => resolve('', name)).filter((path) => path !== undefined);
for (let path = queue.pop(); path !== undefined; path = queue.pop()) {
  const entry = packages[path];
  if (kept.has(path) || entry === undefined) continue;
  kept.add(path);
  for (const deps of [entry.dependencies, entry.optionalDependencies, entry.peerDependencies]) {
    for (const name of Object.keys(deps ?? {})) {
      const found = resolve(path, name);
      if (found !== undefined) queue.push(found);
    }
  }
}

const DROPPED_DIRS = new Set([
  'test',
  'tests',
  '__tests__',
  'example',
  'examples',
  'docs',
  'benchmark',
  'benchmarks',
  '.github',
]);
const DROPPED_FILE = /(\.d\.[cm]?ts|\.map|\.ts|\.md|\.markdown)$/i;
const LEGAL = /^(licen[cs]e|copying|notice|authors)/i;
const SHARED_LIBRARY = /\.so(\.\d+)*$/;

/** Whether a file of an installed package is needed at run time (legal texts always are). */
function wanted(file: string, native: boolean): boolean {
  const name = basename(file);
  if (LEGAL.test(name)) return true;
  if (statSync(file).isDirectory()) {
    if (name === 'node_modules' || DROPPED_DIRS.has(name)) return false;
    // A native addon's sources and third-party code: compiled into its .node file.
    return !(native && (name === 'src' || name === 'deps'));
  }
  if (DROPPED_FILE.test(name)) return false;
  if (native && /(binding\.gyp|CMakeLists\.txt)$/.test(name)) return false;
  return true;
}

let files = 0;
for (const path of [...kept].sort()) {
  const source = join(root, path);
  const native = ['binding.gyp', 'CMakeLists.txt', 'lib/protocol/crypto/binding.gyp'].some((file) =>
    existsSync(join(source, file)),
  );
  cpSync(source, join(app, path), {
    recursive: true,
    // Links stay as the package has them (relative); by default cpSync makes them absolute, into ROOT.
    verbatimSymlinks: true,
    filter: (file) => file === source || wanted(file, native),
  });
  // A native addon's build folder: only the compiled .node files are loaded.
  for (const build of [join(app, path, 'build'), join(app, path, 'lib/protocol/crypto/build')]) {
    if (native && existsSync(build)) pruneBuild(build);
  }
  const prebuilds = join(app, path, 'prebuilds');
  if (existsSync(prebuilds)) prunePrebuilds(prebuilds);
  files++;
}

/**
 * Keeps of a package's prebuilt addons only this machine's (`linux-x64`, glibc): the image runs on
 * the platform that built it, and the others (macOS, Windows, Android, musl) are most of the package.
 */
function prunePrebuilds(dir: string): void {
  const own = new RegExp(`^${process.platform}-${process.arch}([.+]|$)`);
  for (const entry of readdirSync(dir)) if (!own.test(entry)) rmSync(join(dir, entry), { recursive: true });
}

/**
 * Removes from a native addon's build folder everything but its .node files (and empty folders).
 * A shared library the addon built for itself (node-jsonnet's libjsonnet.so.0) moves to LIBDIR: the
 * addon finds it through a RUNPATH that names the folder it was built in, which the image has not.
 */
function pruneBuild(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory() && entry.name === 'obj.target') {
      // node-gyp's intermediate copy of the addon: the one in Release/ is what gets loaded.
      rmSync(full, { recursive: true });
    } else if (entry.isDirectory()) {
      pruneBuild(full);
      if (readdirSync(full).length === 0) rmSync(full, { recursive: true });
    } else if (SHARED_LIBRARY.test(entry.name)) {
      // Its version links (libjsonnet.so.0 → libjsonnet.so.0.20.0) stay links.
      mkdirSync(libdir, { recursive: true });
      if (entry.isSymbolicLink()) symlinkSync(readlinkSync(full), join(libdir, entry.name));
      else copyFileSync(full, join(libdir, entry.name));
      rmSync(full);
    } else if (!entry.name.endsWith('.node')) {
      rmSync(full);
    }
  }
}

console.log(`node_modules: ${files} packages for ${roots.join(', ')}`);
