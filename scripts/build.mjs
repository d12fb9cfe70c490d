// Bundles one ESM file per handler into dist/ (and the CLI). Run by `npm run build` and by
// `prepare`, so `npm ci` leaves a working `npx draftsman`.
import { build } from 'esbuild';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const entries = ['cli', 'webhook', 'worker', 'publisher', 'token-read', 'token-write', 'sweeper'];
const banner = "import {createRequire as __cr} from 'node:module'; const require = __cr(import.meta.url);";

mkdirSync(join(root, 'dist'), { recursive: true });
const quiet = process.argv.includes('--quiet');
for (const name of entries) {
  const entry = join(root, 'src', 'handlers', `${name}.ts`);
  if (!existsSync(entry)) continue;
  const outfile = join(root, 'dist', `${name}.mjs`);
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    banner: { js: banner },
    sourcemap: false,
    legalComments: 'none',
    logLevel: 'warning',
    // The grammars are loaded from files at run time; the deployment copies them.
    external: ['web-tree-sitter/tree-sitter.wasm'],
  });
  if (!quiet) console.log(`dist/${name}.mjs ${(statSync(outfile).size / 1024).toFixed(0)} KiB`);
}
