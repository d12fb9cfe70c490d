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

export function outlineWorkflow(text: string): WorkflowOutline | undefined {
  const lines = significantLines(text);
  if (!lines) return undefined;
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
  if (jobsAt < 0) return { name, jobs: [], uses: [] };

  const jobs: string[] = [];
  const uses: string[] = [];
  let i = jobsAt + 1;
  const jobIndent = lines[i]?.indent ?? 0;
  if (jobIndent === 0) return undefined; // `jobs:` with nothing under it is null, not a map
  while (i < lines.length && lines[i].indent > 0) {
    const head = KEY.exec(lines[i].text);
    if (lines[i].indent !== jobIndent || !head || !opensBlock(head[2]) || jobs.includes(head[1])) return undefined;
    jobs.push(head[1]);
    i++;
    const keyIndent = lines[i]?.indent ?? 0;
    if (keyIndent <= jobIndent) return undefined; // an empty job is null: leave it to the full parse
    const jobKeys = new Set<string>();
    while (i < lines.length && lines[i].indent > jobIndent) {
      const l = lines[i];
      if (l.indent > keyIndent) {
        i++;
        continue;
      }
      const k = KEY.exec(l.text);
      if (l.indent < keyIndent || !k || jobKeys.has(k[1])) return undefined;
      jobKeys.add(k[1]);
      i++;
      if (k[1] !== 'steps') continue;
      if (!opensBlock(k[2]) || !lines[i] || lines[i].indent < keyIndent || !/^-\s/.test(lines[i].text)) return undefined;
      // Items are `- key: value` lines at one column (that of `steps` or deeper); a step's other keys sit at its content column.
      const seqIndent = lines[i].indent;
      while (i < lines.length && (lines[i].indent > keyIndent || (lines[i].indent === seqIndent && lines[i].text.startsWith('-')))) {
        const dash = /^-(\s+)(.*)$/.exec(lines[i].text);
        if (lines[i].indent !== seqIndent || !dash) return undefined;
        const contentAt = seqIndent + 1 + dash[1].length;
        const stepKeys = new Set<string>();
        let stepUses: string | undefined;
        const take = (t: string): boolean => {
          const s = KEY.exec(t);
          if (!s || stepKeys.has(s[1])) return false;
          stepKeys.add(s[1]);
          if (s[1] === 'uses') stepUses = plainString(s[2]);
          return s[1] !== 'uses' || stepUses !== undefined;
        };
        if (!take(dash[2])) return undefined;
        i++;
        for (; i < lines.length && lines[i].indent > seqIndent; i++) {
          if (lines[i].indent < contentAt || (lines[i].indent === contentAt && !take(lines[i].text))) return undefined;
        }
        if (stepUses !== undefined) uses.push(stepUses);
      }
    }
  }
  return { name, jobs, uses };
}
