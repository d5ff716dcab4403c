import { defineConfig } from 'vite';

/**
 * The web UI's build: hashed file names under /assets (served with year-long cache headers), no
 * inline scripts or styles (the server's Content-Security-Policy forbids them), JSX through Preact.
 */
export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    target: 'es2022',
  },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
});
