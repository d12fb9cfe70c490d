import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  IssueCommentCreatedPayload,
  IssuesClosedPayload,
  IssuesLabeledPayload,
  PullRequestReviewCommentCreatedPayload,
  PullRequestReviewSubmittedPayload,
} from '../../../src/app/webhook/webhook-payloads.js';
import {
  buildPayloads,
  HARNESS_APP_ID,
  HARNESS_INSTALLATION_ID,
  HARNESS_OWNER,
  HARNESS_REPO,
  HARNESS_REPOSITORY_ID,
  MAINTAINER,
} from '../../helpers/app-harness.js';
import { startGitHubStandin, type GitHubStandin } from '../../helpers/github-standin/index.js';
import { webhookPayloadProblems, zodRequirementGaps } from '../../helpers/openapi/webhook-schemas.js';

/**
 * Gaps between GitHub's documented payloads and what the App's zod schemas require, accepted on
 * purpose, each with its reason. Anything else the comparison finds fails.
 */
const ACCEPTED_GAPS: Record<string, string> = {
  "$.installation: optional in GitHub's payload":
    'GitHub documents one schema for App and non-App deliveries; deliveries to a GitHub App always carry the installation',
  '$.comment.user: GitHub may send null':
    'null only for a deleted account; a comment being created has a live author, and a payload without one is refused at the boundary',
  '$.review.user: GitHub may send null': 'null only for a deleted account; a review being submitted has a live author, as a comment being created has',
};

describe("the App's webhook payload schemas against GitHub's (@octokit/openapi-webhooks)", () => {
  const cases = [
    ['issues.labeled', IssuesLabeledPayload, 'issues', 'labeled'],
    ['issue_comment.created', IssueCommentCreatedPayload, 'issue_comment', 'created'],
    ['issues.closed', IssuesClosedPayload, 'issues', 'closed'],
    ['pull_request_review.submitted', PullRequestReviewSubmittedPayload, 'pull_request_review', 'submitted'],
    ['pull_request_review_comment.created', PullRequestReviewCommentCreatedPayload, 'pull_request_review_comment', 'created'],
  ] as const;
  it.each(cases)(
    '%s: every field the App requires is one GitHub sends, with a compatible type',
    (_name, schema, event, action) => {
      expect(zodRequirementGaps(schema, event, action).filter((g) => !(g in ACCEPTED_GAPS))).toEqual([]);
    },
    30_000,
  );

  it('catches a required field GitHub does not send, one it may leave out, one of another type, and a possible null', async () => {
    const { z } = await import('zod');
    const invented = IssuesLabeledPayload.extend({
      label: z.object({ id: z.number(), name: z.string(), priority: z.number() }),
      issue: z.object({ number: z.string(), body: z.string(), milestone: z.object({ id: z.number() }) }),
    });
    expect(zodRequirementGaps(invented, 'issues', 'labeled')).toEqual(
      expect.arrayContaining([
        "$.label.priority: not in GitHub's payload",
        "$.label: optional in GitHub's payload",
        '$.issue.number: GitHub sends integer, the schema expects string',
        '$.issue.body: GitHub may send null',
        '$.issue.milestone: GitHub may send null',
      ]),
    );
  });
});

describe("the payloads the tests deliver (app-harness, from @octokit/webhooks-examples) against GitHub's", () => {
  let standin: GitHubStandin;
  beforeAll(async () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    standin = await startGitHubStandin({
      appId: HARNESS_APP_ID,
      privateKeyPem: privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
      users: [MAINTAINER],
      installations: [{ id: HARNESS_INSTALLATION_ID, account: HARNESS_OWNER }],
      repos: [
        {
          owner: HARNESS_OWNER,
          name: HARNESS_REPO,
          id: HARNESS_REPOSITORY_ID,
          installationId: HARNESS_INSTALLATION_ID,
          files: { 'README.md': 'x\n' },
          issues: [{ number: 1, title: 'A task', body: 'Do it', user: MAINTAINER }],
        },
      ],
    });
  });
  afterAll(async () => standin?.stop());

  it('each one has only fields GitHub sends, with their documented types', () => {
    const payloads = buildPayloads(standin);
    const sent = [
      ['issues', payloads.labeled(1)],
      ['issue_comment', payloads.comment(1, '/agent run')],
      ['issue_comment', payloads.comment(1, 'from a bot', { senderType: 'Bot', sender: 'ci[bot]' })],
      ['issues', payloads.closed(1)],
      ['check_suite', payloads.checkSuiteCompleted({ id: 5, headSha: 'a'.repeat(40), headBranch: 'agent/i1/x', conclusion: 'failure' })],
    ] as const;
    for (const [event, payload] of sent) expect(webhookPayloadProblems(event, payload), `${event}.${String(payload.action)}`).toEqual([]);
  }, 30_000);

  it('reports a field GitHub does not send and a mistyped one', () => {
    const payload = buildPayloads(standin).labeled(1);
    const broken = { ...payload, issue: { ...(payload.issue as object), number: '1', priority: 'high' } };
    expect(webhookPayloadProblems('issues', broken)).toEqual([
      'issues.labeled $.issue.number: must be integer',
      "issues.labeled $.issue.priority: field not in GitHub's payload",
    ]);
  });
});
