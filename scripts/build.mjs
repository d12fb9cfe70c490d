// Bundles one ESM file per handler into dist/ (and the CLI). Run by `npm run build` and by
// `prepare`, so `npm ci` leaves a working `npx draftsman`.
import { build } from 'esbuild';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// Options: --quiet; --only <name,name> (some handlers); --outdir <dir> (instead of dist/).
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const option = (name) => {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
};
const only = option('--only')?.split(',');
const entries = ['cli', 'webhook', 'worker', 'publisher', 'token-read', 'token-write', 'sweeper', 'verifier'].filter((name) => !only || only.includes(name));
const banner = "import {createRequire as __cr} from 'node:module'; const require = __cr(import.meta.url);";

const outdir = option('--outdir') ?? join(root, 'dist');
mkdirSync(outdir, { recursive: true });
const quiet = process.argv.includes('--quiet');
for (const name of entries) {
  const entry = join(root, 'src', 'handlers', `${name}.ts`);
  if (!existsSync(entry)) continue;
  const outfile = join(outdir, `${name}.mjs`);
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
  if (!quiet) console.log(`${outfile} ${(statSync(outfile).size / 1024).toFixed(0)} KiB`);
}
