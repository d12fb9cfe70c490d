import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const moduleUrl = new URL('../../../src/app/runtime/young-generation.ts', import.meta.url).href;

/** New-space size (MB) of a fresh process before and after keeping 200k small records alive. */
function youngGeneration(keep: boolean): { before: number; after: number } {
  const script = `
    const { getHeapSpaceStatistics } = await import('node:v8');
    const newSpace = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size / 1048576;
    if (${keep}) (await import(${JSON.stringify(moduleUrl)})).keepYoungGenerationSize();
    const before = newSpace();
    const kept = [];
    for (let i = 0; i < 200000; i++) kept.push({ oid: 'a'.repeat(40) + i, size: i, offset: i * 7 });
    console.log(JSON.stringify({ before, after: newSpace(), kept: kept.length }));`;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: fileURLToPath(new URL('../../..', import.meta.url)), encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').pop()!);
}

describe('keepYoungGenerationSize', () => {
  it('keeps the young generation at its size while many records stay alive; without it the young generation grows', () => {
    const kept = youngGeneration(true);
    expect(kept.after).toBeLessThanOrEqual(kept.before);
    const grown = youngGeneration(false);
    expect(grown.after).toBeGreaterThan(grown.before);
  });
});
