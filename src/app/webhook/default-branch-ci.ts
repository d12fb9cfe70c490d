import { isFailingConclusion } from '../../core/runs/ci-failure.js';
import { code } from '../../core/text/report-markdown.js';
import { createCommentOnce, findMarkedComment } from '../github/create-once.js';
import { readTrustedPolicy } from '../github/read-trusted-policy.js';
import { trackingIssue } from '../github/tracking-issue.js';
import { readCiSnapshot } from './ci-event.js';
import { CheckSuiteCompletedEvent } from './webhook-payloads.js';
import { WebhookSession, type TriggerDeps } from './webhook-session.js';

export const DEFAULT_BRANCH_CI_MARKER = '<!-- draftsman:default-branch-ci -->';
const suiteMarker = (suiteId: number) => `<!-- draftsman:check-suite:${suiteId} -->`;

/** Most failing checks named in one comment. */
const MAX_CHECKS_SHOWN = 30;

/** A check's link, only when it is a plain http(s) URL: anything else from CI is not rendered as Markdown. */
const link = (url: string | undefined) => (url && /^https?:\/\/[^\s<>()[\]`]+$/.test(url) ? ` (<${url}>)` : '');

export type DefaultBranchCiOutcome = 'ignored' | 'commented' | 'already-commented';

/**
 * `check_suite.completed` with conclusion failure on the default branch, under
 * `agent.on.checkSuiteFailed`: one comment (per suite, found again by its marker) on the
 * policy's issue or the App's tracking issue for the default branch, naming the failing checks,
 * their conclusions and links as read from the checks API. It never starts a run or a change:
 * the checks' names and output are data, shown in code spans, never read as a request.
 */
export async function commentOnDefaultBranchFailure(deps: TriggerDeps, raw: unknown): Promise<DefaultBranchCiOutcome> {
  const parsed = CheckSuiteCompletedEvent.safeParse(raw);
  if (!parsed.success) return 'ignored';
  const { check_suite: suite, repository, installation } = parsed.data;
  if (suite.conclusion !== 'failure' || suite.head_branch !== repository.default_branch) return 'ignored';
  const session = new WebhookSession(deps, repository, installation.id);
  const api = await session.api();
  const trusted = await readTrustedPolicy(api, { ...session.ref, defaultBranch: session.defaultBranch });
  const rule = trusted.ok && trusted.policy.agent.enabled ? trusted.policy.agent.on.checkSuiteFailed : undefined;
  if (!rule) return 'ignored';
  const issue =
    rule.issue ??
    (
      await trackingIssue(api, {
        ...session.ref,
        botLogin: deps.botLogin,
        marker: DEFAULT_BRANCH_CI_MARKER,
        title: `CI failures on ${session.defaultBranch}`,
        body: `Failing check suites on \`${session.defaultBranch}\` are reported here (\`agent.on.checkSuiteFailed\`). The App never changes the branch for them.\n\n${DEFAULT_BRANCH_CI_MARKER}`,
      })
    ).number;
  const marker = suiteMarker(suite.id);
  const where = { ...session.ref, issue, marker, botLogin: deps.botLogin };
  if (await findMarkedComment(api, where)) return 'already-commented';
  const snapshot = await readCiSnapshot(api, session.owner, session.repo, suite.head_sha);
  const failing = snapshot.checks.filter((c) => isFailingConclusion(c.conclusion));
  const lines = failing.slice(0, MAX_CHECKS_SHOWN).map((c) => `- ${code(c.name)}: ${code(c.conclusion ?? 'unknown')}${link(c.url)}`);
  const more = failing.length > MAX_CHECKS_SHOWN ? [`- and ${failing.length - MAX_CHECKS_SHOWN} more`] : [];
  const body = [
    `A check suite failed on \`${session.defaultBranch}\` at ${suite.head_sha.slice(0, 12)}: ${failing.length} failing check${failing.length === 1 ? '' : 's'}.`,
    '',
    ...(lines.length > 0 ? [...lines, ...more] : ['- the checks API names no failing check']),
    '',
    'An analysis only: no run and no change is started from CI output. Label an issue or use `/agent run` to ask for a fix.',
    '',
    marker,
  ].join('\n');
  await createCommentOnce(api, { ...where, body });
  deps.logger.info('default branch check suite failure reported', {
    owner: session.owner,
    repo: session.repo,
    suite: suite.id,
    issue,
    failing: failing.length,
  });
  return 'commented';
}
