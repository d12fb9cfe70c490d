import { readArtifactIfPresent } from '../artifacts/artifact-io.js';
import { runKeys, type RunKeys } from '../artifacts/keys.js';
import type { ArtifactStore } from '../ports.js';
import { PublishRecord } from './publish-record.js';
import { RunRecord, RunRequest } from './run-request.js';
import { parseIssueKey } from './run-key.js';
import { IssueLatest } from './run-state.js';
import { CLOSED_RUN_STATUSES } from './run-status.js';

export interface OpenAgentRun {
  keys: RunKeys;
  request: RunRequest;
  record: PublishRecord;
  run: RunRecord | undefined;
}

/**
 * The runs of a repository with an open agent pull request: each issue's latest run (from the
 * issue pointers) that published and whose pull request has not closed. At most `limit` runs,
 * in run-id order, so one event's work is bounded however many issues the repository has.
 */
export async function listOpenAgentRuns(store: ArtifactStore, owner: string, repo: string, limit: number): Promise<OpenAgentRun[]> {
  const runIds = new Set<string>();
  for (const key of await store.list(`issues/${owner}/${repo}/`)) {
    if (parseIssueKey(key)?.kind !== 'latest') continue;
    const latest = await readArtifactIfPresent(store, key, IssueLatest).catch(() => undefined);
    if (latest) runIds.add(latest.runId);
  }
  const open: OpenAgentRun[] = [];
  for (const runId of [...runIds].sort()) {
    if (open.length >= limit) break;
    const run = await readOpenAgentRun(store, runKeys(owner, repo, runId));
    if (run) open.push(run);
  }
  return open;
}

/** One run, when it published a pull request that has not closed (and is a GitHub run). */
export async function readOpenAgentRun(store: ArtifactStore, keys: RunKeys): Promise<OpenAgentRun | undefined> {
  const record = await readArtifactIfPresent(store, keys.publish, PublishRecord).catch(() => undefined);
  if (!record) return undefined;
  const run = await readArtifactIfPresent(store, keys.run, RunRecord).catch(() => undefined);
  if (run && CLOSED_RUN_STATUSES.has(run.status)) return undefined;
  if ((await store.list(keys.ciPrefix)).some((k) => /\/ci\/pr-closed-\d+\.json$/.test(k))) return undefined;
  const request = await readArtifactIfPresent(store, keys.request, RunRequest).catch(() => undefined);
  if (!request || request.source.kind !== 'github') return undefined;
  return { keys, request, record, run };
}
