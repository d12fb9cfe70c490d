import { z } from 'zod';

export const TargetEvidence = z.object({
  /** keyword (text search hit), symbol (from syntax tags), recipe (recipe candidate), scope, manifest. */
  type: z.enum(['keyword', 'symbol', 'recipe', 'scope', 'manifest']),
  line: z.number().int().optional(),
  snippet: z.string().optional(),
  term: z.string().optional(),
  detail: z.string().optional(),
});
export type TargetEvidence = z.infer<typeof TargetEvidence>;

export const FileClassification = z.enum(['source', 'test', 'manifest', 'config', 'docs', 'ci', 'migration', 'generated', 'lockfile', 'other']);
export type FileClassification = z.infer<typeof FileClassification>;

export const SelectedFile = z.object({
  path: z.string(),
  /** 0..1, higher first. */
  rank: z.number(),
  classification: FileClassification,
  allowedToEdit: z.boolean(),
  module: z.string().optional(),
  reasons: z.array(z.string()),
  evidence: z.array(TargetEvidence),
});
export type SelectedFile = z.infer<typeof SelectedFile>;

export const TARGET_WARNING_CODES = [
  'SYMBOL_RESOLUTION_PARTIAL',
  'TARGET_SELECTION_EMPTY',
  'FORBIDDEN_PATH_IN_SCOPE',
  'SCOPE_PATH_MISSING',
  'LOCKFILE_NEEDS_REFRESH',
  'SEARCH_TRUNCATED',
  'TASK_WORDS_TOO_COMMON',
  'SELECTION_CAPPED',
] as const;
export const TargetWarning = z.object({ code: z.enum(TARGET_WARNING_CODES), message: z.string(), data: z.record(z.string(), z.unknown()).optional() });
export type TargetWarning = z.infer<typeof TargetWarning>;

/** target-selection.json. */
export const TargetSelection = z.object({
  schemaVersion: z.literal(1),
  baseCommitSha: z.string(),
  strategy: z.string(),
  status: z.enum(['READY', 'READY_WITH_WARNINGS', 'FAILED']),
  reason: z.string().optional(),
  /** Best first (rank 1 first). */
  selectedFiles: z.array(SelectedFile),
  excludedFiles: z.array(
    z.object({
      path: z.string(),
      reason: z.string(),
      /** For a file the cap left out: its rank among the files found (same scale as selected files). */
      rank: z.number().optional(),
    }),
  ),
  warnings: z.array(TargetWarning),
  searchTerms: z.array(z.string()),
  /** How the project records a change for its users (`changelog-convention.ts`); absent on older selections. */
  changelog: z
    .discriminatedUnion('kind', [
      z.object({ kind: z.literal('fragments'), directory: z.string() }),
      z.object({ kind: z.literal('file'), path: z.string() }),
      z.object({ kind: z.literal('none') }),
    ])
    .optional(),
  stats: z.object({ filesConsidered: z.number().int(), filesSearched: z.number().int(), filesParsed: z.number().int() }),
});
export type TargetSelection = z.infer<typeof TargetSelection>;
