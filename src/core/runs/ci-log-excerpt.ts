/** Lines kept before the step's error marker (`##[error]Process completed with exit code 1`), or the log's end. */
export const CI_LOG_TAIL_LINES = 40;
/** Most lines an excerpt keeps, tail and failure-pattern lines together. */
export const CI_LOG_MAX_LINES = 80;
/** Characters an excerpt keeps; the end of the log wins when it is longer. */
export const MAX_CI_LOG_CHARS = 4_000;
/** Characters of one kept line. */
const MAX_LINE_CHARS = 300;

/** Lines that say what failed, in the words test runners, compilers and GitHub Actions use. */
const FAILURE = /##\[error\]|\berror\b|\bfail(?:s|ed|ure|ing)?\b|Traceback|\bexception\b|\bassert(?:ion)?\b|\bpanic:|\bexpected\b.*\b(?:got|received|but)\b/i;
/** GitHub Actions' own marker of the failing step's end. */
const STEP_ERROR = /^##\[error\]/;
const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z ?/;
const ANSI = /\u001b\[[0-9;?]*[A-Za-z]/g;

function clean(line: string): string {
  const text = line.replace(TIMESTAMP, '').replace(ANSI, '').trimEnd();
  return text.length > MAX_LINE_CHARS ? `${text.slice(0, MAX_LINE_CHARS - 1)}…` : text;
}

/**
 * A bounded excerpt of a failed CI job's log: the last CI_LOG_TAIL_LINES lines before the first
 * `##[error]` step marker (where a test runner prints its failures), then lines matching failure
 * patterns elsewhere with a line of context each, in log order, gaps shown as `…`. Timestamps and
 * terminal colours are removed. The text stays untrusted: the caller scrubs secrets and frames it.
 */
export function ciLogExcerpt(log: string): string {
  const lines = log.split(/\r?\n/).map(clean);
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  if (lines.length === 0) return '';
  const marker = lines.findIndex((l) => STEP_ERROR.test(l));
  const end = marker >= 0 ? marker : lines.length - 1;
  const keep = new Set<number>();
  for (let i = Math.max(0, end - CI_LOG_TAIL_LINES); i <= end; i++) keep.add(i);
  lines.forEach((l, i) => {
    if (keep.size >= CI_LOG_MAX_LINES || !FAILURE.test(l)) return;
    for (let j = Math.max(0, i - 1); j <= Math.min(lines.length - 1, i + 1); j++) keep.add(j);
  });
  const out: string[] = [];
  let last = -1;
  for (const i of [...keep].sort((a, b) => a - b)) {
    if (i > last + 1) out.push('…');
    out.push(lines[i]);
    last = i;
  }
  if (last < lines.length - 1) out.push('…');
  const text = out.join('\n');
  return text.length <= MAX_CI_LOG_CHARS ? text : `…${text.slice(text.length - MAX_CI_LOG_CHARS + 1)}`;
}
