import type { GitStatusReport } from '../../src/core/git/git-status.js';

const encoder = new TextEncoder();

/**
 * The exact bytes of `git status --porcelain=v1 -z --branch` for a status report (no upstream
 * tracking info: the agent branch has none). Paths are raw UTF-8, NUL-terminated, never quoted.
 */
export function formatPorcelainStatus(report: Pick<GitStatusReport, 'branch' | 'headSha' | 'detachedHead' | 'entries'>): Uint8Array {
  let header: string;
  if (report.detachedHead) header = '## HEAD (no branch)';
  else if (!report.headSha) header = `## No commits yet on ${report.branch ?? 'main'}`;
  else header = `## ${report.branch}`;
  let out = `${header}\0`;
  for (const e of report.entries) {
    out += `${e.x}${e.y} ${e.path}\0`;
    if (e.origPath !== undefined) out += `${e.origPath}\0`;
  }
  return encoder.encode(out);
}
