import { describe, expect, it } from 'vitest';
import { issueLatestKey, lockKey, runKeys } from '../../../src/core/artifacts/keys.js';
import { parseIssueKey, parseRunKey } from '../../../src/core/runs/run-key.js';
import { shortId } from '../../../src/core/util/digest.js';

/** parseRunKey reads back exactly what runKeys builds, and nothing else. */
const RUN_ID = shortId(4242, 7, 'comment-1');
const K = runKeys('acme', 'orders.js', RUN_ID);
const R = `runs/acme/orders.js/${RUN_ID}`;
const WHO = { owner: 'acme', repo: 'orders.js', runId: RUN_ID };

describe('parseRunKey', () => {
  it('a webhook run id has the exact shape it checks', () => {
    expect(RUN_ID).toMatch(/^[a-z2-7]{12}$/);
  });

  it.each([
    ['request.json', K.request, { kind: 'request', attempt: 1 }],
    ['attempt request', K.attempt(2).request, { kind: 'attempt-request', attempt: 2 }],
    ['continuation', K.attempt(3).continue(2), { kind: 'continuation', attempt: 3, continuation: 2 }],
    ['continuation of attempt 1', K.attempt(1).continue(1), { kind: 'continuation', attempt: 1, continuation: 1 }],
    ['pr-candidate', K.candidate.prCandidate, { kind: 'pr-candidate' }],
    ['ci event', K.ci(987654), { kind: 'ci', ciId: '987654' }],
    ['ci poll', K.ci(`poll-${'a'.repeat(40)}`), { kind: 'ci', ciId: `poll-${'a'.repeat(40)}` }],
    ['run.json', K.run, { kind: 'run' }],
    ['publish.json', K.publish, { kind: 'publish' }],
    ['cancel marker', K.cancel, { kind: 'cancel' }],
    ['approval marker', K.approve(2), { kind: 'approve', attempt: 2 }],
    ['build request', K.attempt(2).verifyRequest('d'.repeat(64)), { kind: 'verify-request', attempt: 2, digest: 'd'.repeat(64) }],
    ['build result', K.verify('d'.repeat(64)).result, { kind: 'verify-result', digest: 'd'.repeat(64) }],
  ])('%s', (_name, key, expected) => {
    expect(parseRunKey(key)).toEqual({ ...WHO, ...expected });
  });

  it.each([
    ['a run id that is too short', `runs/acme/orders/${RUN_ID.slice(1)}/request.json`],
    ['a run id that is too long', `runs/acme/orders/${RUN_ID}a/request.json`],
    ['a run id with upper case', `runs/acme/orders/${RUN_ID.toUpperCase()}/request.json`],
    ['a run id with base32-foreign digits', 'runs/acme/orders/abcdefghij01/request.json'],
    ['a CLI-style run id', 'runs/acme/orders/run-1/request.json'],
    ['attempt 1 as an attempt request', `${R}/attempts/1/request.json`],
    ['attempt 0', `${R}/attempts/0/continue-1.json`],
    ['a zero-padded attempt', `${R}/attempts/02/request.json`],
    ['continuation 0', `${R}/attempts/2/continue-0.json`],
    ['a signed attempt', `${R}/attempts/+2/request.json`],
    ['a nested candidate', `${R}/candidate/x/pr-candidate.json`],
    ['a ci key in a subfolder', `${R}/ci/a/b.json`],
    ['a dot-dot repo', `runs/acme/../${RUN_ID}/request.json`],
    ['a dot repo', `runs/acme/./${RUN_ID}/request.json`],
    ['an owner with an underscore', `runs/ac_me/orders/${RUN_ID}/request.json`],
    ['an owner starting with a dash', `runs/-acme/orders/${RUN_ID}/request.json`],
    ['a leading slash', `/${R}/request.json`],
    ['a trailing suffix', `${R}/request.json.bak`],
    ['a ledger entry (not an object a function reacts to)', K.attempt(2).ledger(1)],
    ['a lease', K.attempt(2).lease],
    ['another prefix', `issues/acme/orders/1/latest.json`],
    ['an empty key', ''],
    // RunWorkerRole denies the worker every attempt key ending in `/request.json`: a build request is not one.
    ['a build request named request.json', `${R}/attempts/2/verify/${'d'.repeat(64)}/request.json`],
    ['the build’s own result', K.verify('d'.repeat(64)).buildResult],
  ])('%s is undefined', (_name, key) => {
    expect(parseRunKey(key)).toBeUndefined();
  });
});

describe('parseIssueKey', () => {
  it('reads back lock and issue pointer keys', () => {
    expect(parseIssueKey(lockKey('acme', 'orders.js', 12))).toEqual({ kind: 'lock', owner: 'acme', repo: 'orders.js', issue: 12 });
    expect(parseIssueKey(issueLatestKey('acme', 'orders.js', 3))).toEqual({ kind: 'latest', owner: 'acme', repo: 'orders.js', issue: 3 });
  });

  it.each([
    'locks/acme/orders/issues/0.json',
    'locks/acme/orders/issues/012.json',
    'locks/acme/orders/issues/1.json.tmp',
    'locks/acme/../issues/1.json',
    'locks/acme/orders/pulls/1.json',
    'issues/acme/orders/1/latest.json/x',
    'issues/acme/orders/x/latest.json',
  ])('%s is undefined', (key) => {
    expect(parseIssueKey(key)).toBeUndefined();
  });
});
