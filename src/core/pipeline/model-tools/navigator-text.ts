import type { NavigationResponse, PathExplanation } from '../../repomap/repo-navigator.js';

/**
 * The navigator's answers as the model reads every other tool's answer: plain lines, one result
 * per line with its evidence, best first. The query is echoed on the first line so a result read
 * back from an elided history still says what it answered.
 */
export function navigationText(response: NavigationResponse<{ type: string } & Record<string, unknown>>): string {
  const { type, ...args } = response.query;
  const asked = Object.entries(args)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(' ');
  const head = `${type} ${asked}`.trim();
  if (response.results.length === 0) return withTruncation(`${head}: no results`, response.truncated);
  const lines = response.results.map((r, i) => {
    const evidence = r.evidence.length > 0 ? ` [${r.evidence.join(', ')}]` : '';
    return `${i + 1}. ${r.path} (score ${r.score}): ${r.reason}${evidence}`;
  });
  const count = response.results.length === 1 ? '1 result' : `${response.results.length} results`;
  return withTruncation(`${head}: ${count}\n${lines.join('\n')}`, response.truncated);
}

/** What `explainPath` found, one fact per line; facts the map does not have are left out. */
export function explanationText(e: PathExplanation): string {
  const lines = [`${e.path}: ${e.exists ? 'exists' : 'does not exist'}, role ${e.role}`];
  if (e.module) lines.push(`module: ${e.module.id} at ${e.module.path} (${e.module.buildSystem})`);
  if (e.manifest) lines.push(`manifest: ${e.manifest}`);
  if (e.owners.length > 0 || e.ownersRule)
    lines.push(`owners: ${e.owners.join(' ') || 'none (explicitly unowned)'}${e.ownersRule ? ` (rule ${e.ownersRule})` : ''}`);
  else lines.push('owners: no CODEOWNERS rule matches');
  if (e.risk) lines.push(`risk: ${e.risk.level}: ${e.risk.reason}`);
  for (const h of e.hints) lines.push(`hint: ${h.kind}${h.framework ? ` (${h.framework})` : ''}: ${h.reason}`);
  if (e.evidence.length > 0) lines.push(`evidence: ${e.evidence.join(', ')}`);
  return lines.join('\n');
}

function withTruncation(text: string, truncated: string | undefined): string {
  return truncated ? `${text}\n[${truncated}]` : text;
}
