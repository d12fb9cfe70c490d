import { z } from 'zod';
import {
  MAX_ANNOTATIONS_PER_RUN,
  MAX_CI_FAILURES,
  boundCiFailureReport,
  isFailingConclusion,
  type CiAnnotation,
  type CiFailureReport,
  type UnboundedCiFailure,
} from '../../core/runs/ci-failure.js';
import { ciLogExcerpt } from '../../core/runs/ci-log-excerpt.js';
import { redactSecrets } from '../../core/secrets/secret-scan.js';
import type { GitHubApi } from './github-api.js';

/** Check-run list pages read (100 runs each); a commit with more runs is reported as truncated. */
export const MAX_CHECK_RUN_PAGES = 5;
const PER_PAGE = 100;
/** Failed GitHub Actions jobs whose logs are read per report. */
export const MAX_JOB_LOGS = 5;
/** Characters of a job log looked at: its end, where the failure is. */
const MAX_LOG_CHARS_READ = 1_000_000;

// The subsets of GitHub's answers this reader uses, checked where they enter.
const Output = z.object({
  title: z.string().nullish(),
  summary: z.string().nullish(),
  text: z.string().nullish(),
  annotations_count: z.number().int().nullish(),
});
const CheckRun = z.object({
  id: z.number().int(),
  name: z.string(),
  status: z.string(),
  conclusion: z.string().nullish(),
  details_url: z.string().nullish(),
  html_url: z.string().nullish(),
  output: Output.nullish(),
  app: z.object({ slug: z.string().nullish() }).nullish(),
});
const CheckRunPage = z.object({ total_count: z.number().int(), check_runs: z.array(CheckRun) });
const Annotation = z.object({
  path: z.string(),
  start_line: z.number().int(),
  end_line: z.number().int(),
  annotation_level: z.string().nullish(),
  message: z.string().nullish(),
  title: z.string().nullish(),
});
const CombinedStatus = z.object({
  statuses: z.array(z.object({ context: z.string(), state: z.string(), description: z.string().nullish(), target_url: z.string().nullish() })),
});

const LEVELS = new Set<string>(['notice', 'warning', 'failure']);

function annotationOf(a: z.infer<typeof Annotation>): CiAnnotation | undefined {
  const level = a.annotation_level ?? 'failure';
  if (!LEVELS.has(level)) return undefined;
  return {
    path: a.path,
    startLine: a.start_line,
    endLine: a.end_line,
    level: level as CiAnnotation['level'],
    message: a.message ?? '',
    ...(a.title ? { title: a.title } : {}),
  };
}

const byName = <T extends { name: string }>(a: T, b: T) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * What failed on commit `sha`: its failing check runs (output title, summary, text and up to
 * MAX_ANNOTATIONS_PER_RUN annotations each) and its failing commit statuses, as a bounded
 * report. `api` must carry the read token (checks:read, statuses:read). Every cost is capped
 * before it is paid: at most MAX_CHECK_RUN_PAGES list pages, one annotation page for each of at
 * most MAX_CI_FAILURES failing runs, one combined-status page. Annotation paths that could leave
 * the repository are dropped; what was left out sets `truncated`.
 */
export async function readCiFailures(api: GitHubApi, owner: string, repo: string, sha: string): Promise<CiFailureReport> {
  let truncated = false;
  const runs: z.infer<typeof CheckRun>[] = [];
  for (let page = 1; ; page++) {
    const res = await api.rest.checks.listForRef({ owner, repo, ref: sha, per_page: PER_PAGE, page });
    const data = CheckRunPage.parse(res.data);
    runs.push(...data.check_runs);
    if (data.check_runs.length < PER_PAGE || runs.length >= data.total_count) break;
    if (page === MAX_CHECK_RUN_PAGES) {
      truncated = true;
      break;
    }
  }
  const failingRuns = runs.filter((r) => r.status === 'completed' && isFailingConclusion(r.conclusion)).sort(byName);
  if (failingRuns.length > MAX_CI_FAILURES) truncated = true;

  const failures: UnboundedCiFailure[] = [];
  let logsRead = 0;
  for (const run of failingRuns.slice(0, MAX_CI_FAILURES)) {
    const withLog = run.app?.slug === 'github-actions' && logsRead++ < MAX_JOB_LOGS;
    const read = await checkRunFailure(api, owner, repo, run, withLog);
    truncated ||= read.truncated;
    failures.push(read.failure);
  }

  const combined = CombinedStatus.parse((await api.rest.repos.getCombinedStatusForRef({ owner, repo, ref: sha, per_page: PER_PAGE })).data);
  const failingStatuses = combined.statuses
    .filter((s) => s.state === 'failure' || s.state === 'error')
    .map((s) => ({ ...s, name: s.context }))
    .sort(byName);
  for (const s of failingStatuses) {
    failures.push({
      kind: 'status',
      name: s.context,
      conclusion: s.state,
      ...optional('url', s.target_url),
      ...optional('title', s.description),
      annotations: [],
    });
  }
  return boundCiFailureReport(sha, failures, truncated);
}

/** One failing check run with its annotations (one page) and, for an Actions job, its log excerpt. */
async function checkRunFailure(api: GitHubApi, owner: string, repo: string, run: z.infer<typeof CheckRun>, withLog: boolean) {
  const annotations: CiAnnotation[] = [];
  const count = run.output?.annotations_count ?? 0;
  if (count > 0) {
    const res = await api.rest.checks.listAnnotations({ owner, repo, check_run_id: run.id, per_page: MAX_ANNOTATIONS_PER_RUN, page: 1 });
    for (const raw of z.array(Annotation).parse(res.data)) {
      const a = annotationOf(raw);
      if (a) annotations.push(a);
    }
  }
  const failure: UnboundedCiFailure = {
    kind: 'check_run',
    name: run.name,
    conclusion: run.conclusion ?? 'failure',
    ...optional('url', run.details_url ?? run.html_url),
    ...optional('title', run.output?.title),
    ...optional('summary', run.output?.summary),
    ...optional('text', run.output?.text),
    ...optional('log', withLog ? await readJobLog(api, owner, repo, run.id) : undefined),
    annotations,
  };
  return { failure, truncated: count > MAX_ANNOTATIONS_PER_RUN };
}

/**
 * An excerpt of a failed GitHub Actions job's log (an Actions check run's id is its job id), with
 * the read token (actions:read): GitHub answers 302 to a short-lived download URL, which the
 * client follows. Secrets are scrubbed before the excerpt is taken. A log that is gone (410), a
 * job that is not one (404) or a missing permission leave the failure without a log.
 */
async function readJobLog(api: GitHubApi, owner: string, repo: string, jobId: number): Promise<string | undefined> {
  let raw: unknown;
  try {
    raw = (await api.rest.actions.downloadJobLogsForWorkflowRun({ owner, repo, job_id: jobId })).data;
  } catch {
    return undefined;
  }
  const text = typeof raw === 'string' ? raw : raw instanceof ArrayBuffer ? new TextDecoder().decode(raw) : undefined;
  if (!text) return undefined;
  return ciLogExcerpt(redactSecrets(text.slice(-MAX_LOG_CHARS_READ)).text);
}

function optional<K extends string>(key: K, value: string | null | undefined): Partial<Record<K, string>> {
  return value === null || value === undefined || value === '' ? {} : ({ [key]: value } as Record<K, string>);
}
