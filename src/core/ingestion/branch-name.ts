/**
 * The agent branch of DESIGN §4: `agent/i<issue>/r<runId>` for issue runs and
 * `agent/local/r<runId>` for the CLI. Stable per run (not per attempt), always under `agent/`.
 */
export function agentBranchName(options: { issue: number; runId: string } | { local: true; runId: string }): string {
  const { runId } = options;
  if (!/^[a-z0-9][a-z0-9_-]{0,63}$/i.test(runId)) throw new Error(`run id is not usable in a branch name: ${JSON.stringify(runId)}`);
  let name: string;
  if ('issue' in options) {
    if (!Number.isSafeInteger(options.issue) || options.issue <= 0) throw new Error(`issue number must be a positive integer: ${options.issue}`);
    name = `agent/i${options.issue}/r${runId}`;
  } else name = `agent/local/r${runId}`;
  if (!isValidBranchName(name)) throw new Error(`not a valid branch name: ${name}`);
  return name;
}

/** git check-ref-format rules for a branch name (without `refs/heads/`). */
export function isValidBranchName(name: string): boolean {
  if (name === '' || name === '@' || name.length > 200) return false;
  if (name.startsWith('/') || name.endsWith('/') || name.endsWith('.') || name.startsWith('-')) return false;
  if (name.includes('..') || name.includes('//') || name.includes('@{')) return false;
  if (/[\u0000-\u0020\u007f~^:?*[\\]/.test(name)) return false;
  return name.split('/').every((part) => part !== '' && !part.startsWith('.') && !part.endsWith('.lock'));
}
