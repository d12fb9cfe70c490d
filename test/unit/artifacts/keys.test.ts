import { describe, expect, it } from 'vitest';
import { ArtifactError } from '../../../src/core/artifacts/artifact-error.js';
import { hourBucket, issueLatestKey, limitSlotKey, limitPrefix, lockKey, mapKey, padSeq, parseSeq, runKeys } from '../../../src/core/artifacts/keys.js';
import { campaignKeys, parseCampaignRecordKey } from '../../../src/core/artifacts/campaign-keys.js';
import { parseQueueEntryKey, queueCounterKey, queueEntryKey, queuePrefix, workerSlotKey } from '../../../src/core/artifacts/queue-keys.js';

const R = 'runs/octo/widgets/abcdefghijkl';
const BLOB = 'a'.repeat(40);
const COMMIT = '0123456789abcdef0123456789abcdef01234567';

describe('storage keys, exactly as docs/architecture.md lists them', () => {
  const run = runKeys('octo', 'widgets', 'abcdefghijkl');
  const attempt = run.attempt(2);

  it.each([
    ['request', run.request, `${R}/request.json`],
    ['run', run.run, `${R}/run.json`],
    ['cancel', run.cancel, `${R}/control/cancel.json`],
    ['approve', run.approve(3), `${R}/control/approve-3.json`],
    ['attempt request', attempt.request, `${R}/attempts/2/request.json`],
    ['lease', attempt.lease, `${R}/attempts/2/lease.json`],
    ['continue', attempt.continue(1), `${R}/attempts/2/continue-1.json`],
    ['base-ref', attempt.baseRef, `${R}/attempts/2/base-ref.json`],
    ['ingestion', attempt.ingestion, `${R}/attempts/2/ingestion.json`],
    ['policy-scan', attempt.policyScan, `${R}/attempts/2/policy-scan.json`],
    ['repo-map', attempt.repoMap, `${R}/attempts/2/repo-map.json`],
    ['target-selection', attempt.targetSelection, `${R}/attempts/2/target-selection.json`],
    ['ledger', attempt.ledger(7), 'trail/octo/widgets/abcdefghijkl/2/ledger/000007.json'],
    ['checkpoint', attempt.checkpoint(12, 'edit'), `${R}/attempts/2/checkpoints/000012-edit.json`],
    ['patch', attempt.patch(3, 'phase-edit'), `${R}/attempts/2/patches/000003-phase-edit.diff`],
    ['approval-request', attempt.approvalRequest, `${R}/attempts/2/approval-request.json`],
    ['pr-candidate', run.candidate.prCandidate, `${R}/candidate/pr-candidate.json`],
    ['pr-body', run.candidate.prBody, `${R}/candidate/pr-body.md`],
    ['diff-summary', run.candidate.diffSummary, `${R}/candidate/diff-summary.json`],
    ['change blob', run.candidate.change(BLOB), `${R}/candidate/changes/${BLOB}`],
    ['publish', run.publish, `${R}/publish.json`],
    ['spend', run.spend, `${R}/spend.json`],
    ['ci', run.ci(987654), `${R}/ci/987654.json`],
    ['issue latest', issueLatestKey('octo', 'widgets', 42), 'issues/octo/widgets/42/latest.json'],
    ['lock', lockKey('octo', 'widgets', 42), 'locks/octo/widgets/issues/42.json'],
    ['limit slot', limitSlotKey('octo', 'widgets', '2025-03-04T05', 2), 'limits/octo/widgets/2025-03-04T05/slot-000002.json'],
    ['queue entry', queueEntryKey('octo', 'widgets', 42, 'abcdefghijkl'), 'queue/waiting/octo/widgets/000000000042-abcdefghijkl.json'],
    ['queue counter', queueCounterKey('octo', 'widgets'), 'queue/counters/octo/widgets.json'],
    ['worker slot', workerSlotKey(4), 'queue/workers/slot-000004.json'],
    ['map', mapKey('octo', 'widgets', COMMIT, 'v3', 'deadbeef'), `maps/octo/widgets/${COMMIT}/v3-deadbeef.json`],
    ['campaign', campaignKeys('octo', 'widgets', 42, 'jakarta-abc').record, 'campaigns/octo/widgets/42/jakarta-abc/campaign.json'],
    ['campaign item', campaignKeys('octo', 'widgets', 42, 'jakarta-abc').item('acme', 'web'), 'campaigns/octo/widgets/42/jakarta-abc/items/acme/web.json'],
    [
      'campaign slot',
      campaignKeys('octo', 'widgets', 42, 'jakarta-abc').slot('m-2026-02-03T04:05', 0),
      'campaigns/octo/widgets/42/jakarta-abc/slots/m-2026-02-03T04:05/0',
    ],
    ['campaign tracking', campaignKeys('octo', 'widgets', 42, 'jakarta-abc').tracking, 'campaigns/octo/widgets/42/jakarta-abc/tracking.json'],
  ])('%s', (_name, actual, expected) => {
    expect(actual).toBe(expected);
  });

  it('gives prefixes that contain exactly their keys', () => {
    expect(run.prefix).toBe(`${R}/`);
    expect(attempt.ledger(1).startsWith(attempt.ledgerPrefix)).toBe(true);
    expect(attempt.checkpoint(1, 'x').startsWith(attempt.checkpointsPrefix)).toBe(true);
    expect(attempt.patch(1, 'x').startsWith(attempt.patchesPrefix)).toBe(true);
    expect(run.candidate.change(BLOB).startsWith(run.candidate.changesPrefix)).toBe(true);
    expect(run.ci(1).startsWith(run.ciPrefix)).toBe(true);
    expect(limitSlotKey('o', 'r', '2025-03-04T05', 0).startsWith(limitPrefix('o', 'r', '2025-03-04T05'))).toBe(true);
    expect(queueEntryKey('o', 'r', 5, 'x').startsWith(queuePrefix('o', 'r'))).toBe(true);
  });

  it('orders queue entries by their number in line, and parses them back', () => {
    const keys = [queueEntryKey('o', 'r', 10, 'a'), queueEntryKey('o', 'r', 9, 'z'), queueEntryKey('o', 'r', 2, 'b')];
    expect([...keys].sort()).toEqual([keys[2], keys[1], keys[0]]);
    expect(parseQueueEntryKey(keys[0])).toEqual({ owner: 'o', repo: 'r', n: 10, runId: 'a' });
    expect(parseQueueEntryKey('queue/workers/slot-000001.json')).toBeUndefined();
  });

  it('parses a campaign record key back, and refuses a pace window of another shape', () => {
    expect(parseCampaignRecordKey('campaigns/octo/widgets/42/jakarta-abc/campaign.json')).toEqual({
      owner: 'octo',
      repo: 'widgets',
      issue: 42,
      campaignId: 'jakarta-abc',
    });
    expect(parseCampaignRecordKey('campaigns/octo/widgets/42/jakarta-abc/items/a/b.json')).toBeUndefined();
    expect(() => campaignKeys('o', 'r', 1, 'c').slot('m-2026-02-03', 0)).toThrow();
  });

  it('pads sequence numbers so lexical order is numeric order', () => {
    const seqs = [0, 1, 2, 9, 10, 11, 99, 100, 1000, 99999, 999999];
    const keys = seqs.map((s) => attempt.ledger(s));
    expect([...keys].reverse().sort()).toEqual(keys);
    expect(keys.map(parseSeq)).toEqual(seqs);
    expect(parseSeq(attempt.checkpoint(42, 'edit'))).toBe(42);
    expect(padSeq(5)).toBe('000005');
  });

  it('formats the hour bucket of an instant in UTC', () => {
    const ms = Date.UTC(2025, 2, 4, 5, 59, 59);
    expect(hourBucket(ms)).toBe('2025-03-04T05');
    expect(limitSlotKey('o', 'r', ms, 0)).toBe('limits/o/r/2025-03-04T05/slot-000000.json');
  });

  it.each([
    ['owner with slash', () => runKeys('oc/to', 'widgets', 'r')],
    ['repo ..', () => runKeys('octo', '..', 'r')],
    ['repo .', () => runKeys('octo', '.', 'r')],
    ['empty runId', () => runKeys('octo', 'widgets', '')],
    ['runId with slash', () => issueLatestKey('octo', 'a/b', 1)],
    ['backslash', () => lockKey('oc\\to', 'w', 1)],
    ['NUL', () => runKeys('octo', 'w\u0000', 'r')],
    ['phase with slash', () => attempt.checkpoint(1, '../x')],
    ['negative seq', () => attempt.ledger(-1)],
    ['fractional seq', () => attempt.ledger(1.5)],
    ['seq too wide', () => attempt.ledger(1_000_000)],
    ['attempt 0', () => run.attempt(0)],
    ['issue 0', () => lockKey('o', 'r', 0)],
    ['bad blob sha', () => run.candidate.change('../../etc')],
    ['bad commit', () => mapKey('o', 'r', 'main', 'v1', 'd')],
    ['bad hour', () => limitSlotKey('o', 'r', '2025-03-04 05', 0)],
    ['queue number 0', () => queueEntryKey('o', 'r', 0, 'x')],
  ])('refuses %s', (_name, build) => {
    expect(build).toThrow(ArtifactError);
    try {
      build();
    } catch (error) {
      expect((error as ArtifactError).reason).toBe('ARTIFACT_KEY_INVALID');
    }
  });

  it('accepts local repository identities with spaces and unicode', () => {
    expect(runKeys('local', 'my repo-1a2b3c4d', 'r1').request).toBe('runs/local/my repo-1a2b3c4d/r1/request.json');
    expect(runKeys('local', 'café-1a2b3c4d', 'r1').run).toBe('runs/local/café-1a2b3c4d/r1/run.json');
  });
});
