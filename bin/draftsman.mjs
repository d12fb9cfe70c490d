#!/usr/bin/env -S node --
// The CLI entry: the bundled dist/cli.mjs (built by `npm ci` through `prepare`).
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bundle = join(root, 'dist', 'cli.mjs');
if (!existsSync(bundle)) {
  process.stderr.write('draftsman: dist/cli.mjs is missing; run `npm run build` first\n');
  process.exit(2);
}
const { main } = await import(pathToFileURL(bundle).href);
process.exitCode = await main(process.argv.slice(2));
