/**
 * The text of a Gradle script (Groovy or Kotlin DSL) made ready for pattern matching: comments
 * blanked without touching strings (a URL's `//` stays), and the offsets of named blocks
 * (`dependencies { … }`, `plugins { … }`). Every pass is one walk over the text.
 */

/** Scripts longer than this are not read: a build script this size is generated or hostile. */
export const MAX_SCRIPT_CHARS = 1_000_000;

/** Offset just past the string literal opening at `i` (`"…"`, `'…'`, `"""…"""`, `'''…'''`); a one-line string ends at its line's end. */
export function stringEnd(src: string, i: number): number {
  const q = src[i];
  const triple = q + q + q;
  if (src.startsWith(triple, i)) {
    const end = src.indexOf(triple, i + 3);
    return end < 0 ? src.length : end + 3;
  }
  for (let j = i + 1; j < src.length; j++) {
    const c = src[j];
    if (c === '\\') j++;
    else if (c === q) return j + 1;
    else if (c === '\n') return j;
  }
  return src.length;
}

/** `//` and `/* … *\/` comments replaced by spaces (newlines kept, so offsets and lines stay); strings are left whole. */
export function blankComments(text: string): string {
  const parts: string[] = [];
  let from = 0;
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '"' || c === "'") {
      i = stringEnd(text, i);
    } else if (c === '/' && text[i + 1] === '/') {
      const nl = text.indexOf('\n', i);
      const end = nl < 0 ? text.length : nl;
      parts.push(text.slice(from, i), ' '.repeat(end - i));
      from = i = end;
    } else if (c === '/' && text[i + 1] === '*') {
      const close = text.indexOf('*/', i + 2);
      const end = close < 0 ? text.length : close + 2;
      parts.push(text.slice(from, i), text.slice(i, end).replace(/[^\n]/g, ' '));
      from = i = end;
    } else i++;
  }
  parts.push(text.slice(from));
  return parts.join('');
}

/** The identifier written just before the `{` at `i` (`dependencies {` gives `dependencies`; `create("x") {` gives ''). */
function nameBefore(src: string, i: number): string {
  const stop = Math.max(0, i - 200);
  let j = i - 1;
  while (j >= stop && (src[j] === ' ' || src[j] === '\t' || src[j] === '\n' || src[j] === '\r')) j--;
  const end = j + 1;
  while (j >= stop && /\w/.test(src[j])) j--;
  return src.slice(j + 1, end);
}

/** Whether an offset lies in a block of a given name, by binary search over the merged block spans. */
export type BlockLookup = (name: string, offset: number) => boolean;

/** Spans of the blocks named `names` in `src` (comments already blanked); an unclosed block runs to the end. */
export function blockLookup(src: string, names: readonly string[]): BlockLookup {
  const wanted = new Set(names);
  const spans = new Map<string, [number, number][]>();
  const stack: { name: string; start: number }[] = [];
  const close = (b: { name: string; start: number }, end: number): void => {
    if (!wanted.has(b.name)) return;
    const list = spans.get(b.name) ?? [];
    list.push([b.start, end]);
    spans.set(b.name, list);
  };
  for (let i = 0; i < src.length; i++) {
    const c = src[i];
    if (c === '"' || c === "'") i = stringEnd(src, i) - 1;
    else if (c === '{') stack.push({ name: nameBefore(src, i), start: i });
    else if (c === '}') {
      const b = stack.pop();
      if (b) close(b, i);
    }
  }
  while (stack.length) close(stack.pop()!, src.length);
  const merged = new Map<string, [number, number][]>();
  for (const [name, list] of spans) merged.set(name, mergeSpans(list));
  return (name, offset) => {
    const list = merged.get(name);
    if (!list) return false;
    let lo = 0;
    let hi = list.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (offset < list[mid][0]) hi = mid - 1;
      else if (offset > list[mid][1]) lo = mid + 1;
      else return true;
    }
    return false;
  };
}

/** Nested spans of one name folded into disjoint ones, sorted by start. */
function mergeSpans(list: [number, number][]): [number, number][] {
  const sorted = [...list].sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  for (const s of sorted) {
    const last = out[out.length - 1];
    if (last && s[0] <= last[1]) last[1] = Math.max(last[1], s[1]);
    else out.push([s[0], s[1]]);
  }
  return out;
}

/** The first `${expression}` or `$name` in a version as written. */
const VERSION_REF = /\$\{([^{}\n]{1,200})\}|\$([A-Za-z_][\w.]{0,200})/;

/** The expression a version as written refers to (`${kotlin_version}` gives `kotlin_version`), or the whole text when `bare`. */
export function referenceIn(version: string, bare: boolean): string | undefined {
  if (bare) return version;
  const m = VERSION_REF.exec(version);
  return m ? (m[1] ?? m[2]) : undefined;
}

/** The version with its first reference replaced by the value it names (`${v}-jre` with 33.0 gives 33.0-jre); a bare reference is the value. */
export function substituteReference(version: string, value: string): string {
  const m = VERSION_REF.exec(version);
  return m ? version.slice(0, m.index) + value + version.slice(m.index + m[0].length) : value;
}

/**
 * The variable or property a reference names: `$v`, `${rootProject.ext.v}`, `${project.property("v")}`,
 * `extra["v"] as String` all give `v`; a catalog accessor keeps its path (`libs.versions.kotlin.get()`
 * gives `libs.versions.kotlin`). Undefined for any other expression.
 */
export function referenceName(expr: string): string | undefined {
  let e = expr
    .trim()
    .replace(/[ \t]as[ \t]{1,20}String\??$/, '')
    .trimEnd()
    .replace(/!!$/, '')
    .replace(/\.get\(\)$/, '')
    .replace(/\.$/, '')
    .replace(/^(?:rootProject|project)\./, '');
  const indexed = /^(?:ext|extra|properties|property|findProperty)[ \t]*[[(][ \t]*["']([\w.-]{1,100})["'][ \t]*[\])]$/.exec(e);
  if (indexed) return indexed[1];
  e = e.replace(/^(?:ext|extra)\./, '');
  return /^[A-Za-z_][\w.-]{0,200}$/.test(e) ? e : undefined;
}
