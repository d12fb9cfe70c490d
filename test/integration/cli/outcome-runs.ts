import { serializeArtifact } from '../../../src/core/artifacts/artifact-io.js';
import { runKeys } from '../../../src/core/artifacts/keys.js';
import type { SpendRecord } from '../../../src/core/budget/spend.js';
import { RunRecord, RunRequest } from '../../../src/core/runs/run-request.js';
import type { RunRecordStatus } from '../../../src/core/runs/run-status.js';
import { shortId } from '../../../src/core/util/digest.js';

/**
 * Fifty runs as the App leaves them in its bucket (and the CLI in its --out directory): request.json,
 * run.json and the attempts' ledgers with priced model calls, over three repositories of two
 * installations, in October and November 2026. The figures a report must print are written out by
 * hand in the tests that use them.
 */
export interface SeedRun {
  owner: string;
  repo: string;
  installation: number;
  createdAt: string;
  status: RunRecordStatus | 'NONE';
  reason?: string;
  /** MERGED/CLOSED: seconds from the request to the close. */
  closedAfter?: number;
  /** Model spend per attempt, micro-dollars; null for an unpriced call. */
  spend: (number | null)[];
}

const OCT = '2026-10-15T10:00:00.000Z';
const NOV = '2026-11-10T10:00:00.000Z';

function many(n: number, run: Omit<SeedRun, 'closedAfter'>, closedAfter?: number[]): SeedRun[] {
  return Array.from({ length: n }, (_, i) => ({ ...run, ...(closedAfter ? { closedAfter: closedAfter[i] } : {}) }));
}

const api = { owner: 'acme', repo: 'api', installation: 101 };
const web = { owner: 'acme', repo: 'web', installation: 101 };
const tool = { owner: 'beta', repo: 'tool', installation: 202 };

/** acme/api: 20 runs, all in November (one at the first instant of it). */
const API: SeedRun[] = [
  ...many(6, { ...api, createdAt: NOV, status: 'MERGED', spend: [70_000, 50_000] }, [3600, 7200, 1800, 86_400, 600, 5400]),
  ...many(3, { ...api, createdAt: NOV, status: 'CLOSED', spend: [30_000] }, [900, 900, 900]),
  ...many(2, { ...api, createdAt: NOV, status: 'PUBLISHED', spend: [30_000] }),
  { ...api, createdAt: '2026-11-01T00:00:00.000Z', status: 'PUBLISHED', spend: [30_000] },
  ...many(2, { ...api, createdAt: NOV, status: 'FAILED', reason: 'STUCK', spend: [30_000] }),
  { ...api, createdAt: NOV, status: 'BLOCKED', reason: 'TREE_MISMATCH', spend: [30_000] },
  { ...api, createdAt: NOV, status: 'BUDGET_EXCEEDED', spend: [30_000] },
  { ...api, createdAt: NOV, status: 'FAILED', reason: 'the worker stopped', spend: [30_000] },
  { ...api, createdAt: NOV, status: 'CANCELLED', spend: [30_000] },
  { ...api, createdAt: NOV, status: 'NEEDS_APPROVAL', spend: [30_000] },
  { ...api, createdAt: NOV, status: 'QUEUED', spend: [] },
];

/** acme/web: 12 runs, all in October (one at its last second). */
const WEB: SeedRun[] = [
  ...many(3, { ...web, createdAt: OCT, status: 'MERGED', spend: [200_000] }, [1200, 2400, 4800]),
  ...many(2, { ...web, createdAt: OCT, status: 'CLOSED', spend: [30_000] }, [60, 60]),
  ...many(2, { ...web, createdAt: OCT, status: 'PUBLISHED', spend: [30_000] }),
  { ...web, createdAt: OCT, status: 'FAILED', reason: 'STUCK', spend: [30_000] },
  { ...web, createdAt: '2026-10-31T23:59:59.000Z', status: 'BLOCKED', reason: 'SCOPE_VIOLATION', spend: [30_000] },
  { ...web, createdAt: OCT, status: 'BUDGET_EXCEEDED', spend: [30_000] },
  { ...web, createdAt: OCT, status: 'COMPLETED', spend: [30_000] },
  { ...web, createdAt: OCT, status: 'NONE', spend: [] },
];

/** beta/tool: 18 runs; the merged and failed ones in November, the rest in October. */
const TOOL: SeedRun[] = [
  ...many(4, { ...tool, createdAt: NOV, status: 'MERGED', spend: [90_000] }, [300, 900, 2700, 8100]),
  ...many(4, { ...tool, createdAt: OCT, status: 'CLOSED', spend: [30_000] }, [100, 100, 100, 100]),
  ...many(3, { ...tool, createdAt: OCT, status: 'PUBLISHED', spend: [30_000] }),
  ...many(3, { ...tool, createdAt: NOV, status: 'FAILED', reason: 'STUCK', spend: [30_000] }),
  { ...tool, createdAt: NOV, status: 'BUDGET_EXCEEDED', spend: [30_000] },
  { ...tool, createdAt: NOV, status: 'BUDGET_EXCEEDED', spend: [null] },
  { ...tool, createdAt: OCT, status: 'CANCELLED', spend: [30_000] },
  { ...tool, createdAt: OCT, status: 'READY', spend: [30_000] },
];

export const SEED_RUNS: readonly SeedRun[] = [...API, ...WEB, ...TOOL];

/** The objects of the seeded runs, and one run directory without a request (skipped as unreadable). */
export function seedObjects(): { key: string; body: string }[] {
  const objects: { key: string; body: string }[] = [];
  SEED_RUNS.forEach((seed, i) => {
    const runId = shortId('outcome-seed', String(i));
    const keys = runKeys(seed.owner, seed.repo, runId);
    const request: RunRequest = {
      schemaVersion: 1,
      runId,
      owner: seed.owner,
      repo: seed.repo,
      source: {
        kind: 'github',
        repositoryId: 1000 + i,
        installationId: seed.installation,
        cloneUrl: 'https://github.com/x.git',
        apiUrl: 'https://api.github.com',
      },
      trigger: { kind: 'label', key: `label-${i}` },
      issue: { number: i + 1, title: `task ${i}`, body: '', updatedAt: seed.createdAt },
      agentBranch: `draftsman/${runId}`,
      createdAt: seed.createdAt,
    };
    objects.push({ key: keys.request, body: serializeArtifact(keys.request, RunRequest, request) });
    const closedAt = seed.closedAfter === undefined ? undefined : new Date(Date.parse(seed.createdAt) + seed.closedAfter * 1000).toISOString();
    if (seed.status !== 'NONE') {
      const attempts = Math.max(1, seed.spend.length);
      const run: RunRecord = {
        schemaVersion: 1,
        runId,
        status: seed.status,
        ...(seed.reason ? { reason: seed.reason } : {}),
        attempt: attempts,
        attempts: Array.from({ length: attempts }, (_, n) => ({ n: n + 1, status: 'COMPLETED', startedAt: seed.createdAt })),
        agentBranch: request.agentBranch,
        updatedAt: closedAt ?? seed.createdAt,
      };
      objects.push({ key: keys.run, body: serializeArtifact(keys.run, RunRecord, run) });
    }
    // The task's spend record as the model caller keeps it: every attempt's calls, settled.
    if (seed.spend.length > 0) {
      const record: SpendRecord = {
        schemaVersion: 1,
        calls: seed.spend.length,
        tokensIn: 100 * seed.spend.length,
        tokensOut: 10 * seed.spend.length,
        costMicroUsd: seed.spend.reduce<number>((sum, c) => sum + (c ?? 0), 0),
        expired: 0,
        reserved: {},
      };
      objects.push({ key: keys.spend, body: JSON.stringify(record) });
    }
  });
  objects.push({ key: 'runs/acme/api/orphanrun2222/run.json', body: '{}' });
  return objects;
}
