/**
 * What the map wants from a GitHub workflow (its name, its job ids, the actions its steps use)
 * read from the lines of the block-style YAML nearly every workflow is written in, without
 * building the whole document: real workflows are mostly long `run: |` scripts, and a full
 * YAML parse of pnpm's 24 workflows (300 KB) took longer than the rest of its map.
 *
 * Anything outside the plain shape (flow collections, anchors, aliases, tags, quoted or
 * numeric keys, escapes, several documents, tabs, a scalar that would not resolve to the same
 * string) returns undefined, and the caller parses the document in full. So the outline is
 * either what the full parse gives, or absent.
 */

export interface WorkflowOutline {
  name: string | undefined;
  jobs: string[];
  /** `uses` of every step, job by job, in order. */
  uses: string[];
}

interface Line {
  indent: number;
  text: string;
}

const KEY = /^([A-Za-z_][\w-]*):(?:\s+(.*))?$/;
/** Plain scalars that may resolve to something other than the same string (number, bool, null) or are not plain. */
const NOT_A_PLAIN_STRING = /^(?:[-+]?(?:\d|\.\d|\.inf|\.nan)|[~!&*@`|>'"%{[\]},?#-]|(?:true|false|yes|no|on|off|null)$)/i;

/** A plain scalar's string value, or undefined when it is not one the outline can vouch for. */
function plainString(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const value = raw.replace(/\s+#.*$/, '').trimEnd();
  if (value === '' || NOT_A_PLAIN_STRING.test(value) || /: |:$|\t|\\/.test(value)) return undefined;
  return value;
}

/** A key line whose value is empty or only a comment (a nested block follows). */
function opensBlock(value: string | undefined): boolean {
  return value === undefined || value.startsWith('#');
}

/** Lines that carry structure: not blank, not whole-line comments; undefined if a line is not plain. */
function significantLines(text: string): Line[] | undefined {
  const lines: Line[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const body = raw.trimStart();
    if (body === '' || body.startsWith('#')) continue;
    if (/^\s*\t/.test(raw)) return undefined;
    // One leading document marker is allowed; anything else at that level is for the full parse.
    if (raw === '---' && lines.length === 0) continue;
    lines.push({ indent: raw.length - body.length, text: body.trimEnd() });
  }
  return lines;
}

/** A cursor result meaning the outline cannot vouch for the document (the caller parses it in full). */
const GIVE_UP = -1;

/** The top-level keys: each a simple key, once; the workflow's name (a plain string) and where `jobs:` is. */
function topLevel(lines: Line[]): { name: string | undefined; jobsAt: number } | undefined {
  let name: string | undefined;
  let jobsAt = -1;
  const seenTop = new Set<string>();
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    if (l.indent > 0) continue;
    const m = KEY.exec(l.text);
    // A top-level line that is not a simple key (markers, directives, flow text) is beyond the outline.
    if (!m || seenTop.has(m[1])) return undefined;
    seenTop.add(m[1]);
    if (m[1] === 'name') {
      name = plainString(m[2]);
      if (name === undefined || (lines[i + 1] && lines[i + 1].indent > 0)) return undefined;
    }
    if (m[1] === 'jobs') {
      if (!opensBlock(m[2])) return undefined;
      jobsAt = i;
    }
  }
  return { name, jobsAt };
}

/** The keys of one step, each once; its `uses` when it is a plain string. */
class StepKeys {
  private readonly keys = new Set<string>();
  uses: string | undefined;

  /** Takes one `key: value` line of the step; false when the outline cannot vouch for it. */
  take(text: string): boolean {
    const s = KEY.exec(text);
    if (!s || this.keys.has(s[1])) return false;
    this.keys.add(s[1]);
    if (s[1] === 'uses') this.uses = plainString(s[2]);
    return s[1] !== 'uses' || this.uses !== undefined;
  }
}

/** One step: `- key: value` at `seqIndent`, its other keys at its content column. Returns the line after it. */
function readStep(lines: Line[], i: number, seqIndent: number, uses: string[]): number {
  const dash = /^-(\s+)(.*)$/.exec(lines[i].text);
  if (lines[i].indent !== seqIndent || !dash) return GIVE_UP;
  const contentAt = seqIndent + 1 + dash[1].length;
  const step = new StepKeys();
  if (!step.take(dash[2])) return GIVE_UP;
  i++;
  for (; i < lines.length && lines[i].indent > seqIndent; i++) {
    if (lines[i].indent < contentAt || (lines[i].indent === contentAt && !step.take(lines[i].text))) return GIVE_UP;
  }
  if (step.uses !== undefined) uses.push(step.uses);
  return i;
}

/**
 * A job's `steps:` block, from the line after it. Items are `- key: value` lines at one column
 * (that of `steps` or deeper); a step's other keys sit at its content column.
 */
function readSteps(lines: Line[], i: number, keyIndent: number, value: string | undefined, uses: string[]): number {
  if (!opensBlock(value) || !lines[i] || lines[i].indent < keyIndent || !/^-\s/.test(lines[i].text)) return GIVE_UP;
  const seqIndent = lines[i].indent;
  while (i < lines.length && (lines[i].indent > keyIndent || (lines[i].indent === seqIndent && lines[i].text.startsWith('-')))) {
    i = readStep(lines, i, seqIndent, uses);
    if (i === GIVE_UP) return GIVE_UP;
  }
  return i;
}

/** One job, from its `id:` line: its keys each once, the `uses` of its steps. Returns the line after it. */
function readJob(lines: Line[], i: number, jobIndent: number, jobs: string[], uses: string[]): number {
  const head = KEY.exec(lines[i].text);
  if (lines[i].indent !== jobIndent || !head || !opensBlock(head[2]) || jobs.includes(head[1])) return GIVE_UP;
  jobs.push(head[1]);
  i++;
  const keyIndent = lines[i]?.indent ?? 0;
  if (keyIndent <= jobIndent) return GIVE_UP; // an empty job is null: leave it to the full parse
  const jobKeys = new Set<string>();
  while (i < lines.length && lines[i].indent > jobIndent) {
    const l = lines[i];
    if (l.indent > keyIndent) {
      i++;
      continue;
    }
    const k = KEY.exec(l.text);
    if (l.indent < keyIndent || !k || jobKeys.has(k[1])) return GIVE_UP;
    jobKeys.add(k[1]);
    i++;
    if (k[1] === 'steps') i = readSteps(lines, i, keyIndent, k[2], uses);
    if (i === GIVE_UP) return GIVE_UP;
  }
  return i;
}

export function outlineWorkflow(text: string): WorkflowOutline | undefined {
  const lines = significantLines(text);
  const top = lines && topLevel(lines);
  if (!lines || !top) return undefined;
  const { name, jobsAt } = top;
  if (jobsAt < 0) return { name, jobs: [], uses: [] };
  const jobs: string[] = [];
  const uses: string[] = [];
  let i = jobsAt + 1;
  const jobIndent = lines[i]?.indent ?? 0;
  if (jobIndent === 0) return undefined; // `jobs:` with nothing under it is null, not a map
  while (i < lines.length && lines[i].indent > 0) {
    i = readJob(lines, i, jobIndent, jobs, uses);
    if (i === GIVE_UP) return undefined;
  }
  return { name, jobs, uses };
}
