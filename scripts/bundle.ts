/*
 * Bundles the compiled CLI (dist/cli/main.js, from `tsc`) into dist/bundle/: one file per lazily loaded
 * subcommand instead of ~600 modules of svc and its dependencies. Node's module loader (resolving,
 * reading and compiling each file) was most of a command's start-up: `svc server` went 1,012 → ~620 ms
 * to its first /healthz answer (bench/analysis.md, "startup"). Run by `npm run build` after `tsc`.
 *
 * Code splitting keeps `main.ts`'s dynamic imports lazy: `svc exec` loads no database driver.
 */
import { build, type Plugin } from 'esbuild';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIST = path.join(ROOT, 'dist');
const OUT = path.join(DIST, 'bundle');

/**
 * Packages left to Node's loader: native addons (their .node file is found from their own folder),
 * packages that start worker threads from files of their own (pino's transports), and the large SDKs
 * loaded only when a setting asks for them (object storage, ACME, Kubernetes, SSH). The list is
 * images/svc/externals.json: svc's image carries exactly these packages (images/svc/modules.ts).
 */
const EXTERNAL = JSON.parse(
  await readFile(path.join(ROOT, 'images', 'svc', 'externals.json'), 'utf8'),
) as string[];

/**
 * svc's modules find files next to them (the web UI, docs/settings.md, worker scripts, package.json)
 * through `import.meta.url`. In a bundle every module would see the chunk's URL instead, so each
 * module's `import.meta.url` becomes its own file's URL in dist/, relative to the chunk.
 */
const ownUrls: Plugin = {
  name: 'own-import-meta-url',
  setup(builder) {
    builder.onLoad({ filter: /\.js$/ }, async (args) => {
      if (!args.path.startsWith(DIST + path.sep)) return undefined;
      const text = await readFile(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return { contents: text, loader: 'js' };
      const relative = path.relative(OUT, args.path).split(path.sep).join('/');
      const own = `new URL(${JSON.stringify(relative)}, import.meta.url).href`;
      return { contents: text.replaceAll('import.meta.url', own), loader: 'js' };
    });
  },
};

await rm(OUT, { recursive: true, force: true });
const result = await build({
  entryPoints: [path.join(DIST, 'cli', 'main.js')],
  outdir: OUT,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node24',
  chunkNames: 'chunk-[hash]',
  external: EXTERNAL,
  // CommonJS dependencies call require() for Node's built-ins; an ES module has none of its own.
  banner: {
    js: "import { createRequire as svcCreateRequire } from 'node:module'; const require = svcCreateRequire(import.meta.url);",
  },
  plugins: [ownUrls],
  legalComments: 'none',
  metafile: true,
  logLevel: 'warning',
});
const bytes = Object.values(result.metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);
console.log(
  `bundle: ${Object.keys(result.metafile.inputs).length} modules → ${Object.keys(result.metafile.outputs).length} files, ${(bytes / 1048576).toFixed(1)} MiB in dist/bundle`,
);
