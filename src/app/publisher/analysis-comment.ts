import { analysisReportMarker } from '../../core/phases/analysis-report.js';
import { createCommentOnce, findMarkedComment } from '../github/create-once.js';
import type { GitHubApi } from '../github/github-api.js';

/**
 * Post an analysis run's report on its issue, once per attempt: a retried invocation (or a
 * resumed one) finds the comment it posted by the report's marker, written by the App (any bot
 * without `botLogin`), and edits it when the text differs instead of posting a second one; a
 * lost answer to the post is looked up the same way before it is sent again. Returns the
 * comment's URL.
 */
export async function postAnalysisReport(
  api: GitHubApi,
  target: { owner: string; repo: string; issue: number; runId: string; attempt: number; botLogin?: string },
  report: string,
): Promise<string | undefined> {
  const marker = analysisReportMarker(target.runId, target.attempt);
  // The renderer puts the marker first; a report without it could not be found again.
  const body = report.startsWith(marker) ? report : `${marker}\n${report}`;
  const where = { owner: target.owner, repo: target.repo };
  const comment = { ...where, issue: target.issue, body, marker, botLogin: target.botLogin };
  const existing = await findMarkedComment(api, comment);
  if (existing) {
    if (existing.body !== body) await api.rest.issues.updateComment({ ...where, comment_id: existing.id, body });
    return existing.html_url;
  }
  return (await createCommentOnce(api, comment)).html_url;
}
