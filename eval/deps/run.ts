import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { mirrorsDir, runDeps } from './evaluate.js';
import { formatParity, totalsOf } from './parity.js';

/**
 * `npm run eval:deps [-- --mirrors DIR] [--json] [--repo owner/name ...]`: the map's dependencies
 * against Renovate's extraction (Renovate 39, installed on demand into a cache directory) on the
 * mirrored repositories of eval/deps/repos.ts; prints recall per Renovate manager, the
 * exclusions, misses, version disagreements and extras.
 */
const { values } = parseArgs({ options: { mirrors: { type: 'string' }, json: { type: 'boolean' }, repo: { type: 'string', multiple: true } } });
const log = (line: string): void => void process.stderr.write(`eval:deps: ${line}\n`);
const { repos, skipped } = await runDeps({ mirrors: mirrorsDir(values.mirrors), only: values.repo ?? [], log });
process.stdout.write(formatParity(repos));
if (skipped.length) process.stdout.write(`skipped (mirror absent): ${skipped.join(', ')}\n`);
if (values.json) {
  const file = join(dirname(fileURLToPath(import.meta.url)), 'results.json');
  writeFileSync(file, `${JSON.stringify({ totals: totalsOf(repos), repos, skipped }, null, 2)}\n`);
  process.stdout.write(`wrote ${file}\n`);
}
