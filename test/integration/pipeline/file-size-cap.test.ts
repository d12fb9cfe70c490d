import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, makeWorkingCopy } from '../cli/cli-harness.js';
import { removeRoot, tempRoot } from './pipeline-harness.js';

/** One size limit for reading, searching and editing: the policy's `ingestion.maxFileSizeMb`. */
let root: string;
let repo: string;
let taskFile: string;

// 3 MiB of text, over the old fixed 2 MiB search cap and under the policy's default 5 MB.
const big = `${'filler line of a generated catalogue\n'.repeat(86_000)}see LegacyCatalog for the old entries\n`;

beforeAll(() => {
  root = tempRoot('size-cap');
  repo = join(root, 'shop');
  makeWorkingCopy(repo, { 'docs/catalogue.txt': big, 'README.md': '# shop\n' });
  taskFile = join(root, 'task.md');
  writeFileSync(taskFile, 'Rename the catalogue\n\n```agent\nsteps:\n  - recipe: replace\n    find: LegacyCatalog\n    replace: Catalog\n```\n');
});

afterAll(() => removeRoot(root));

describe('the file size limit', () => {
  it('a text file between 2 MiB and the policy limit is searched and changed', async () => {
    expect(Buffer.byteLength(big)).toBeGreaterThan(3 * 1024 * 1024);
    const result = await cli(['run', repo, '--task-file', taskFile, '--out', join(root, 'state'), '--json']);
    expect(result.json).toMatchObject({ status: 'COMPLETED' });
    const candidate = JSON.parse(readFileSync(result.json!.artifacts['pr-candidate.json'], 'utf8'));
    expect(candidate.files.map((f: { path: string }) => f.path)).toEqual(['docs/catalogue.txt']);
  }, 60_000);

  it('a smaller policy limit leaves it alone and says so', async () => {
    const policy = join(root, 'policy.yaml');
    writeFileSync(policy, 'version: 1\ningestion:\n  maxFileSizeMb: 1\n');
    const result = await cli(['run', repo, '--task-file', taskFile, '--out', join(root, 'state-small'), '--policy', policy, '--json']);
    expect(result.json!.status).not.toBe('COMPLETED');
    expect(result.json!.artifacts['pr-candidate.json']).toBeUndefined();
  }, 60_000);
});
