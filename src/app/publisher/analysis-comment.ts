import { analysisReportMarker } from '../../core/phases/analysis-report.js';
import type { GitHubApi } from '../github/github-api.js';

/**
 * Post an analysis run's report on its issue, once per attempt: a retried invocation (or a
 * resumed one) finds the comment it posted by the report's marker, written by a bot, and edits
 * it when the text differs instead of posting a second one. Returns the comment's URL.
 */
export async function postAnalysisReport(
  api: GitHubApi,
  target: { owner: string; repo: string; issue: number; runId: string; attempt: number },
  report: string,
): Promise<string | undefined> {
  const marker = analysisReportMarker(target.runId, target.attempt);
  // The renderer puts the marker first; a report without it could not be found again.
  const body = report.startsWith(marker) ? report : `${marker}\n${report}`;
  const where = { owner: target.owner, repo: target.repo };
  const comments = await api.paginate(api.rest.issues.listComments, { ...where, issue_number: target.issue, per_page: 100 });
  const existing = comments.find((c) => c.user?.type === 'Bot' && c.body?.startsWith(marker));
  if (existing) {
    if (existing.body !== body) await api.rest.issues.updateComment({ ...where, comment_id: existing.id, body });
    return existing.html_url;
  }
  const created = await api.rest.issues.createComment({ ...where, issue_number: target.issue, body });
  return created.data.html_url;
}
