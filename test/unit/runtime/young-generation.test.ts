import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const moduleUrl = new URL('../../../src/app/runtime/young-generation.ts', import.meta.url).href;

/**
 * New-space size (MB) of a fresh process before and after keeping 200k small records alive:
 * with the size kept, with it kept then released (as after ingestion), or untouched.
 */
function youngGeneration(mode: 'keep' | 'keep-then-release' | 'none'): { before: number; after: number } {
  const script = `
    const { getHeapSpaceStatistics } = await import('node:v8');
    const newSpace = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size / 1048576;
    const runtime = await import(${JSON.stringify(moduleUrl)});
    if (${JSON.stringify(mode)} !== 'none') runtime.youngGenerationDuringIngestion.enter();
    if (${JSON.stringify(mode)} === 'keep-then-release') runtime.youngGenerationDuringIngestion.leave();
    const before = newSpace();
    const kept = [];
    for (let i = 0; i < 200000; i++) kept.push({ oid: 'a'.repeat(40) + i, size: i, offset: i * 7 });
    console.log(JSON.stringify({ before, after: newSpace(), kept: kept.length }));`;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: fileURLToPath(new URL('../../..', import.meta.url)),
    encoding: 'utf8',
  });
  return JSON.parse(out.trim().split('\n').pop()!);
}

describe('keepYoungGenerationSize', () => {
  it('keeps the young generation at its size while many records stay alive; without it the young generation grows', () => {
    const kept = youngGeneration('keep');
    expect(kept.after).toBeLessThanOrEqual(kept.before);
    const grown = youngGeneration('none');
    expect(grown.after).toBeGreaterThan(grown.before);
  });

  it('grows again once released, as after ingestion', () => {
    const released = youngGeneration('keep-then-release');
    expect(released.after).toBeGreaterThan(released.before);
  });
});

describe('the composition roots that ingest', () => {
  const root = fileURLToPath(new URL('../../..', import.meta.url));

  /** New-space size (MB) of a fresh process at start and once the handler's bundle is imported. */
  function afterImport(bundle: string): { before: number; after: number } {
    const script = `
      const { getHeapSpaceStatistics } = await import('node:v8');
      const newSpace = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size / 1048576;
      const before = newSpace();
      await import(${JSON.stringify(pathToFileURL(bundle).href)}).catch(() => undefined);
      console.log(JSON.stringify({ before, after: newSpace() }));`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, encoding: 'utf8', env: { PATH: process.env.PATH } });
    return JSON.parse(out.trim().split('\n').pop()!);
  }

  it('keep the young generation at its start-up size from their first module on: loading the bundle does not grow it', () => {
    const outdir = mkdtempSync(join(tmpdir(), 'young-generation-'));
    try {
      execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs'), '--quiet', '--only', 'cli,worker', '--outdir', outdir], { cwd: root });
      for (const name of ['cli', 'worker']) {
        const { before, after } = afterImport(join(outdir, `${name}.mjs`));
        // Compiling the bundle, before any of its code runs, may double the semi-spaces once (and
        // commit both); unchecked, loading the AWS SDK and the rest grows them to 8 MiB each.
        expect(after, name).toBeLessThanOrEqual(before * 4);
      }
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  });
});
