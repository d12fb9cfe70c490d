import { z } from 'zod';
import type { CiFailureReport } from '../runs/ci-failure.js';

/** Most CI repair clusters one attempt works on (one model segment each). */
export const MAX_CI_CLUSTERS = 5;
/** Most files one CI repair cluster lets the model change. */
export const MAX_CI_CLUSTER_FILES = 10;
/** Annotations kept per file of a cluster. */
export const MAX_CI_PROBLEMS_PER_FILE = 20;

/**
 * Failing CI, grouped like parse problems: one cluster per module, its files the annotated ones
 * that the policy lets the agent edit. Lines and messages come from CI tools: untrusted data.
 */
export const CiCluster = z.object({
  /** `ci:<module>`. */
  id: z.string(),
  module: z.string(),
  /** Names of the failing checks that annotated the cluster's files. */
  checks: z.array(z.string()),
  files: z.array(z.object({ path: z.string(), problems: z.array(z.object({ line: z.number().int(), message: z.string(), check: z.string() })) })),
});
export type CiCluster = z.infer<typeof CiCluster>;

export interface CiClusterResult {
  clusters: CiCluster[];
  /** Annotated paths left out, and why (not editable, not a file, over a bound). */
  skipped: { path: string; why: string }[];
}

/** Annotation levels that say something is broken; notices are not repair work. */
const REPAIR_LEVELS = new Set(['failure', 'warning']);

/** Every path a failure or warning annotation points at, once, sorted. */
export function annotatedPaths(report: CiFailureReport): string[] {
  return [...new Set(report.failures.flatMap((f) => f.annotations.filter((a) => REPAIR_LEVELS.has(a.level)).map((a) => a.path)))].sort();
}

/**
 * Cluster the failure and warning annotations of a CI report by module, keeping only paths for
 * which `refuse` says nothing (it names why a path may not be repaired). Bounded: at most
 * MAX_CI_CLUSTERS clusters of MAX_CI_CLUSTER_FILES files, in id and path order; what does not fit
 * is listed in `skipped`.
 */
export function ciClusters(report: CiFailureReport, moduleOf: (path: string) => string, refuse: (path: string) => string | undefined): CiClusterResult {
  const skipped: CiClusterResult['skipped'] = [];
  const byModule = new Map<string, Map<string, CiCluster['files'][number]['problems']>>();
  const checks = new Map<string, Set<string>>();
  for (const failure of report.failures) {
    for (const a of failure.annotations) {
      if (!REPAIR_LEVELS.has(a.level)) continue;
      const module = moduleOf(a.path);
      const files = byModule.get(module) ?? new Map();
      byModule.set(module, files);
      const problems = files.get(a.path) ?? [];
      files.set(a.path, problems);
      if (problems.length < MAX_CI_PROBLEMS_PER_FILE) problems.push({ line: a.startLine, message: a.message, check: failure.name });
      checks.set(module, (checks.get(module) ?? new Set()).add(failure.name));
    }
  }
  const clusters: CiCluster[] = [];
  for (const module of [...byModule.keys()].sort()) {
    const files: CiCluster['files'] = [];
    for (const [path, problems] of [...byModule.get(module)!].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const why = refuse(path);
      if (why) skipped.push({ path, why });
      else if (files.length >= MAX_CI_CLUSTER_FILES) skipped.push({ path, why: `over ${MAX_CI_CLUSTER_FILES} files in module ${module}` });
      else files.push({ path, problems });
    }
    if (files.length === 0) continue;
    if (clusters.length >= MAX_CI_CLUSTERS) {
      skipped.push(...files.map((f) => ({ path: f.path, why: `over ${MAX_CI_CLUSTERS} clusters` })));
      continue;
    }
    clusters.push({ id: `ci:${module}`, module, checks: [...checks.get(module)!].sort(), files });
  }
  return { clusters, skipped };
}
