import { z } from 'zod';

/**
 * The three artifacts ingestion writes under `attempts/<n>/`, validated on write
 * and on read. Each carries `schemaVersion`; those bound to the base carry `baseCommitSha`.
 */

const Sha = z.string().regex(/^[0-9a-f]{40}$/);
const Warning = z.object({ code: z.string(), message: z.string(), data: z.record(z.string(), z.unknown()).optional() });
export type IngestionWarning = z.infer<typeof Warning>;

export const INGESTION_STATUSES = ['REQUESTED', 'AUTHORIZING', 'CLONING', 'READY', 'READY_WITH_WARNINGS', 'FAILED', 'BLOCKED'] as const;
export const IngestionStatus = z.enum(INGESTION_STATUSES);
export type IngestionStatus = z.infer<typeof IngestionStatus>;

export const BaseRefArtifact = z.object({
  schemaVersion: z.literal(1),
  repository: z.object({ owner: z.string(), repo: z.string(), displayUrl: z.string() }),
  baseRef: z.string(),
  baseCommitSha: Sha,
  resolvedAt: z.string(),
});
export type BaseRefArtifact = z.infer<typeof BaseRefArtifact>;

export const CLONE_STRATEGIES = ['shallow-object-backed', 'deepened', 'blobless'] as const;

/**
 * How the base commit is fetched and why. Artifacts written before `deepened` and `blobless`
 * existed (depth 1, no filter, no history fields) still parse.
 */
export const ClonePlanSchema = z.object({
  strategy: z.enum(CLONE_STRATEGIES),
  /** Commits of history, the base included. */
  depth: z.number().int().positive(),
  /** ISO time: every commit after it (protocol v2 `deepen-since`), when the task names a date. */
  deepenSince: z.string().optional(),
  /** `blob:none`: blobs are fetched on demand, for the files actually read. */
  filter: z.literal('blob:none').optional(),
  checkout: z.literal('none'),
  maxBytes: z.number().int().positive(),
  readScope: z.object({ mode: z.enum(['all', 'paths']), patterns: z.array(z.string()) }),
  /** What in the task asked for history (trigger names), when anything did. */
  historyTriggers: z.array(z.string()).optional(),
  reasons: z.array(z.string()),
  /** What the fetch did when it could not follow the plan (a server without `filter`, say). */
  applied: z
    .object({
      depth: z.number().int().positive(),
      deepenSince: z.string().optional(),
      filter: z.literal('blob:none').optional(),
      fallback: z.string().optional(),
    })
    .optional(),
});
export type ClonePlan = z.infer<typeof ClonePlanSchema>;

export const IngestionArtifact = z.object({
  schemaVersion: z.literal(1),
  status: IngestionStatus,
  statusHistory: z.array(z.object({ status: IngestionStatus, at: z.string() })),
  repository: z.object({ owner: z.string(), repo: z.string(), displayUrl: z.string(), sizeKb: z.number().optional() }),
  baseRef: z.string().nullable(),
  baseCommitSha: Sha.nullable(),
  baseTreeSha: Sha.nullable(),
  clonePlan: ClonePlanSchema.nullable(),
  fetch: z.object({ bytes: z.number().nullable(), durationMs: z.number() }).nullable(),
  scan: z.object({ fileCount: z.number(), totalBytes: z.number(), durationMs: z.number() }).nullable(),
  scope: z.object({ patterns: z.array(z.string()), matchedFileCount: z.number(), missing: z.array(z.string()) }).nullable(),
  warnings: z.array(Warning),
  error: z.object({ reason: z.string(), message: z.string() }).optional(),
  startedAt: z.string(),
  completedAt: z.string(),
  durationMs: z.number(),
});
export type IngestionArtifact = z.infer<typeof IngestionArtifact>;

const FindingSchema = z.object({
  code: z.string(),
  severity: z.enum(['block', 'warn']),
  path: z.string(),
  message: z.string(),
  data: z.record(z.string(), z.unknown()).optional(),
});

export const PolicyScanArtifact = z.object({
  schemaVersion: z.literal(1),
  baseCommitSha: Sha,
  baseTreeSha: Sha,
  decision: z.enum(['ALLOWED', 'BLOCKED']),
  fileCount: z.number(),
  totalBytes: z.number(),
  counts: z.record(z.string(), z.number()),
  findings: z.array(FindingSchema),
  symlinks: z.array(z.object({ path: z.string(), target: z.string(), resolved: z.string().nullable(), allowed: z.boolean() })),
  submodules: z.array(z.object({ path: z.string(), oid: z.string().optional(), url: z.string().optional() })),
  lfs: z.object({ attributeFiles: z.array(z.string()), pointers: z.array(z.string()) }),
  scope: z.object({ patterns: z.array(z.string()), missing: z.array(z.string()), forbidden: z.array(z.string()) }),
});
export type PolicyScanArtifact = z.infer<typeof PolicyScanArtifact>;
