import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluate, type Statement } from '../helpers/iam-policy.js';
import { MAINTAINER, startAppHarness, type AppHarness, type TrustedRead } from '../helpers/app-harness.js';
import { roleStatements } from '../helpers/stack-roles.js';

/**
 * docs/trust-chain.md's table "What the worker may write, and who reads it", held to the code:
 * the worker's writable keys come from RunWorkerRole in infra/roles.yml, the reads from a real
 * run through the App harness (a labelled issue to a draft PR, then `/agent status` and
 * `/agent retry` and the retry's run).
 */

interface Row {
  pattern: RegExp;
  text: string;
  readers: string[];
}

/** The table's rows: `<placeholder>` is one path segment, `*` anything. */
function tableRows(): Row[] {
  const doc = readFileSync('docs/trust-chain.md', 'utf8');
  const section = doc.slice(doc.indexOf('## What the worker may write, and who reads it'));
  const body = section.slice(0, section.indexOf('\n## ', 4));
  return body
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const [, key, readers] = line.split('|').map((c) => c.trim());
      const text = /`([^`]+)`/.exec(key)![1];
      const source = text
        .split(/(<[^>]+>|\*)/)
        .map((part) => (part === '*' ? '.*' : part.startsWith('<') ? '[^/]+' : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')))
        .join('');
      return { pattern: new RegExp(`^${source}$`), text, readers: readers === 'none' ? [] : readers.split(',').map((r) => r.trim()) };
    });
}

const TAGS = { owner: 'acme', repo: 'orders', issue: '1' };

/** Whether a worker session of the run (and issue 1) may put or delete `key`. */
function workerMayWrite(statements: Statement[], bucket: string, key: string, runId: string): boolean {
  return ['s3:PutObject', 's3:DeleteObject'].some(
    (action) => evaluate([statements], { action, resource: `arn:aws:s3:::${bucket}/${key}` }, { ...TAGS, runId }) === 'allow',
  );
}

describe('the trust table', () => {
  let h: AppHarness;
  let statements: Statement[];
  let reads: TrustedRead[];
  const rows = tableRows();

  beforeAll(async () => {
    h = await startAppHarness();
    statements = roleStatements('RunWorkerRole', { bucket: h.s3.bucket });
    await h.deliver('issues', h.payloads.labeled(1));
    await h.drain();
    await h.deliver('issue_comment', h.payloads.comment(1, '/agent status', { sender: MAINTAINER }));
    await h.deliver('issue_comment', h.payloads.comment(1, '/agent retry', { sender: MAINTAINER }));
    await h.drain();
    reads = h.trustedReads;
  }, 180_000);

  afterAll(async () => h?.stop());

  it('has a row, naming the reader, for every worker-writable key a trusted function read', () => {
    expect(reads.length).toBeGreaterThan(0);
    const missing = new Set<string>();
    let writable = 0;
    for (const read of reads) {
      const runId = /^runs\/[^/]+\/[^/]+\/([^/]+)\//.exec(read.key)?.[1] ?? 'none';
      const key = read.op === 'list' ? `${read.key}x` : read.key;
      if (!workerMayWrite(statements, h.s3.bucket, key, runId)) continue;
      writable += 1;
      const row = rows.find((r) => r.pattern.test(key));
      if (!row || !row.readers.includes(read.fn)) missing.add(`${read.fn} ${read.op} ${read.key}`);
    }
    // The run's trusted functions do read what the worker wrote (the candidate, at least).
    expect(writable).toBeGreaterThan(0);
    expect([...missing]).toEqual([]);
  });

  it('has a row for every key the worker may write, and no row for a key it may not', () => {
    const runId = 'abcdefghijkl';
    // One key per writable grant of RunWorkerRole, spelled from the session's tags.
    const samples = [
      `runs/acme/orders/${runId}/attempts/1/continue-1.json`,
      `runs/acme/orders/${runId}/attempts/1/checkpoints/000001-intake.json`,
      `runs/acme/orders/${runId}/candidate/pr-candidate.json`,
      `runs/acme/orders/${runId}/candidate/changes/${'a'.repeat(40)}`,
      `runs/acme/orders/${runId}/run.json`,
      `runs/acme/orders/${runId}/attempts/1/progress.json`,
      `runs/acme/orders/${runId}/attempts/1/approval-request.json`,
      'issues/acme/orders/1/latest.json',
      'maps/acme/orders/abc/map.json',
    ];
    for (const key of samples) {
      expect([key, workerMayWrite(statements, h.s3.bucket, key, runId)]).toEqual([key, true]);
      expect([key, rows.some((r) => r.pattern.test(key))]).toEqual([key, true]);
    }
    // Every Allow grant of put or delete is one of the sampled shapes.
    const granted = statements
      .filter((s) => s.Effect === 'Allow' && [s.Action].flat().some((a) => a === 's3:PutObject' || a === 's3:DeleteObject'))
      .flatMap((s) => [s.Resource].flat())
      .map((r) => String(r).replace(/^arn:aws:s3:::[^/]+\//, ''));
    for (const grant of granted) {
      const example = grant
        .replaceAll('${aws:PrincipalTag/owner}', 'acme')
        .replaceAll('${aws:PrincipalTag/repo}', 'orders')
        .replaceAll('${aws:PrincipalTag/runId}', runId)
        .replaceAll('${aws:PrincipalTag/issue}', '1')
        .replaceAll('*', 'x');
      expect([grant, rows.some((r) => r.pattern.test(example))]).toEqual([grant, true]);
    }
    // What the worker may not write has no row: an attempt request, a dispatch record, publish.json,
    // the gate record, its issue's lock.
    for (const key of [
      `runs/acme/orders/${runId}/control/gate-1.json`,
      'locks/acme/orders/issues/1.json',
      `runs/acme/orders/${runId}/attempts/2/request.json`,
      `runs/acme/orders/${runId}/dispatch/x.json`,
      `runs/acme/orders/${runId}/publish.json`,
    ]) {
      expect([key, workerMayWrite(statements, h.s3.bucket, key, runId)]).toEqual([key, false]);
    }
  });
});
