import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pythonPackageRepo } from '../../fixtures/realistic-repos.js';
import { removeRoot, tempRoot } from '../pipeline/pipeline-harness.js';
import { cli, makeWorkingCopy } from './cli-harness.js';

/** Progress through the RunReporter port: one line per stage on the terminal, nothing with --json. */
let root: string;
let work: string;

beforeAll(() => {
  root = tempRoot('cli-progress');
  work = join(root, 'billing');
  makeWorkingCopy(work, pythonPackageRepo());
});

afterAll(() => removeRoot(root));

describe('draftsman map: progress', () => {
  it('on a terminal: a line per stage (ingestion, intake, discovery) with files and elapsed time, then the summary', async () => {
    const result = await cli(['map', work, '--out', join(root, 'state')]);
    expect(result.code).toBe(0);
    const lines = result.stderr.split('\n');
    expect(lines[0]).toMatch(/^draftsman: map local\/billing-[0-9a-f]{8} run [a-z2-7]{12} attempt 1$/);
    expect(lines[1]).toMatch(/^ {2}✓ ingestion +\d+ files +\d+\.\ds {2}refs\/heads\/main at [0-9a-f]{12}$/);
    expect(lines[2]).toMatch(/^ {2}✓ intake +0 changed +0\.0s {2}\S/);
    expect(lines[3]).toMatch(/^ {2}✓ discovery +0 changed +0\.0s {2}\S/);
    expect(lines[4]).toBe('draftsman: READY');
  });

  it('with --json: nothing on stderr', async () => {
    const result = await cli(['map', work, '--out', join(root, 'state-json'), '--json']);
    expect(result.json).toMatchObject({ status: 'READY' });
    expect(result.stderr).toBe('');
  });
});
