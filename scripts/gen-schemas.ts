/**
 * Regenerate the committed JSON Schemas and the policy reference from the zod schemas:
 *   node --import tsx scripts/gen-schemas.ts
 * test/unit/policy/schema-drift.test.ts fails when these files are out of date.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generatedSchemaFiles } from './generated-schema-files.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
for (const [path, content] of Object.entries(generatedSchemaFiles())) {
  const target = join(root, path);
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, content);
  console.log(`wrote ${path}`);
}

// The README carries the same reference between markers.
const { readFileSync } = await import('node:fs');
const { withPolicySection } = await import('./readme-policy-reference.js');
const readme = join(root, 'README.md');
writeFileSync(readme, withPolicySection(readFileSync(readme, 'utf8')));
console.log('wrote README.md policy reference');
