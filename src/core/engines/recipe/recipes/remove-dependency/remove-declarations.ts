import { jsonStringValues } from '../../../../syntax/json-scan.js';
import type { RemoveDependencyStep } from '../../../../task/recipe-steps.js';
import { normalizePythonName } from '../../bump-ecosystems.js';
import type { TextBump } from '../../bump-gradle.js';
import type { SpanEdit } from '../../recipe-types.js';

interface Line {
  text: string;
  start: number;
}

function linesOf(text: string): Line[] {
  const out: Line[] = [];
  let start = 0;
  for (const line of text.split('\n')) {
    out.push({ text: line, start });
    start += line.length + 1;
  }
  return out;
}

/** A whole line removed with its line break (the last line takes the break before it). */
function dropLine(text: string, line: Line): SpanEdit {
  const end = line.start + line.text.length;
  return end < text.length ? { start: line.start, end: end + 1, text: '' } : { start: Math.max(0, line.start - 1), end, text: '' };
}

const NPM_SECTIONS = new Set(['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies']);

/**
 * package.json: the package's entry in the four dependency sections, when it is alone on its
 * line; the entry before loses its comma when the removed one was the last of its object.
 */
export function removeNpm(text: string, step: RemoveDependencyStep): TextBump {
  const out: TextBump = { spans: [], notes: [] };
  const values = jsonStringValues(text);
  if (!values) return { spans: [], notes: ['not valid JSON; left alone'] };
  const lines = linesOf(text);
  for (const v of values) {
    if (v.path.length !== 2 || !NPM_SECTIONS.has(v.path[0]) || v.path[1] !== step.package) continue;
    const index = lines.findIndex((line) => v.start >= line.start && v.start <= line.start + line.text.length);
    const entry = /^\s*"[^"]*"\s*:\s*"[^"]*"\s*(,?)\s*$/.exec(lines[index].text);
    if (!entry) {
      out.notes.push(`${v.path[0]}.${step.package} is not alone on its line; left alone`);
      continue;
    }
    out.spans.push(dropLine(text, lines[index]));
    if (entry[1]) continue;
    // The last entry of its object: the one before it must not keep a trailing comma.
    const before = lines
      .slice(0, index)
      .reverse()
      .find((line) => line.text.trim() !== '');
    const comma = before ? /,\s*$/.exec(before.text) : null;
    if (before && comma) out.spans.push({ start: before.start + comma.index, end: before.start + comma.index + 1, text: '' });
  }
  return out;
}

const REQUIREMENT_NAME = /^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:$|[[<>=!~;@#\s])/;

/** requirements*.txt: every requirement line naming the distribution (PEP 503 names); options and comments stay. */
export function removeRequirements(text: string, step: RemoveDependencyStep): TextBump {
  const out: TextBump = { spans: [], notes: [] };
  const name = normalizePythonName(step.package);
  for (const line of linesOf(text)) {
    if (/^\s*(#|-)/.test(line.text)) continue;
    const m = REQUIREMENT_NAME.exec(line.text);
    if (m && normalizePythonName(m[1]) === name) out.spans.push(dropLine(text, line));
  }
  return out;
}

/** go.mod: the module's `require` line, single or in a block; `go mod tidy` then drops its go.sum lines. */
export function removeGoMod(text: string, step: RemoveDependencyStep): TextBump {
  const out: TextBump = { spans: [], notes: [] };
  let inRequire = false;
  for (const line of linesOf(text)) {
    const trimmed = line.text.trim();
    let module: string | undefined;
    if (inRequire) {
      if (trimmed.startsWith(')')) inRequire = false;
      else module = /^\s*(\S+)\s+\S+/.exec(line.text)?.[1];
    } else if (/^require\s*\(\s*(\/\/.*)?$/.test(trimmed)) inRequire = true;
    else module = /^\s*require\s+(\S+)\s+\S+/.exec(line.text)?.[1];
    if (module === step.package) out.spans.push(dropLine(text, line));
  }
  return out;
}
