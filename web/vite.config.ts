// Builds the web client into dist/web: content-hashed files under assets/, index.html, and a
// gzip and a brotli copy of each text file, which the server picks by Accept-Encoding.
import { defineConfig, type Plugin } from 'vite';
import { fileURLToPath } from 'node:url';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

const root = fileURLToPath(new URL('.', import.meta.url));
const outDir = path.resolve(root, '../dist/web');

function precompress(): Plugin {
  return {
    name: 'precompress',
    apply: 'build',
    closeBundle() {
      const walk = (dir: string): string[] =>
        fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
      for (const file of walk(outDir)) {
        if (!/\.(html|js|css|json|svg|txt)$/.test(file)) continue;
        const body = fs.readFileSync(file);
        fs.writeFileSync(file + '.gz', zlib.gzipSync(body, { level: 9 }));
        fs.writeFileSync(file + '.br', zlib.brotliCompressSync(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } }));
      }
    },
  };
}

export default defineConfig({
  root,
  base: '/',
  publicDir: false,
  logLevel: 'warn',
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  build: {
    outDir,
    emptyOutDir: true,
    assetsDir: 'assets',
    target: 'es2022',
    sourcemap: false,
    // A module preload polyfill would be an inline script: the page's policy forbids those.
    modulePreload: { polyfill: false },
  },
  plugins: [precompress()],
});
