import type { SearchTerm } from './task-contract.js';

type Add = (term: string, kind: SearchTerm['kind'], source: string) => void;

/** A fence line of a report (```lang or ~~~); the lines between two of the same kind are what the reporter ran. */
const FENCE_LINE = /^[ \t]*(`{3,}|~{3,})/;
/** Python `from a.b import C, D as E` and `import a.b`. */
const PY_FROM = /^[ \t]*from[ \t]+([\w.]+)[ \t]+import[ \t]+\(?([\w, \t]+)\)?[ \t]*$/gm;
/** JavaScript/TypeScript `import { a, b as c } from 'x'` and `import X from 'x'`; `const { a } = require('x')`. */
const JS_NAMED =
  /^[ \t]*(?:import(?:[ \t]+type)?|const|let|var)[ \t]+(?:([\w$]+)[ \t]*,?[ \t]*)?(?:\{([^}\n]*)\})?[ \t]*(?:from|=[ \t]*require\()[ \t]*['"][^'"\n]+['"]/gm;
/** Java/Kotlin/Scala `import a.b.C;`, `import static a.b.C.m;`. */
const JVM_IMPORT = /^[ \t]*import[ \t]+(?:static[ \t]+)?((?:[a-z_][\w]*\.)+)([A-Z][\w$]*)(?:\.[\w$*]+)?[ \t]*;?[ \t]*$/gm;
/** Rust `use a::b::C;` and `use a::b::{C, D};`. */
const RUST_USE = /^[ \t]*use[ \t]+[\w:]+::(?:\{([\w, \t]+)\}|([A-Za-z_]\w*))[ \t]*;/gm;

/** Fenced text read, and names kept: a paste of a whole program must not crowd out the report's own names. */
const MAX_CODE_BYTES = 64 * 1024;
export const MAX_IMPORTED_NAMES = 12;

/** `a as b` -> `a`; what is left must be a plain name. */
function importedName(raw: string): string | undefined {
  const name = raw
    .trim()
    .split(/[ \t]+as[ \t]+/)[0]
    .replace(/^type[ \t]+/, '');
  return /^[A-Za-z_$][\w$]*$/.test(name) && name !== '*' ? name : undefined;
}

/**
 * Names a report's code imports: the program a bug report pastes says which public API it used
 * (`from rich.panel import Panel`, `import com.google.gson.Gson;`, `import { mergeConfig } from
 * 'axios'`), and each imported name is a symbol to find the definition of, as if it were
 * backticked. Modules without names (`import os`) name nothing in the repository. Bounded:
 * fenced text up to 64 KiB, at most 12 names; linear patterns only.
 */
export function addImportedNames(texts: readonly { text: string; source: string }[], add: Add): void {
  let kept = 0;
  const keep = (raw: string, source: string): void => {
    const name = importedName(raw);
    if (name === undefined || name.length < 2 || kept >= MAX_IMPORTED_NAMES) return;
    kept++;
    add(name, 'symbol', `${source} (imported in its code)`);
  };
  for (const { text, source } of texts) {
    for (const code of fencedCode(text)) {
      for (const m of code.matchAll(PY_FROM)) for (const n of m[2].split(',')) keep(n, source);
      for (const m of code.matchAll(JS_NAMED)) {
        if (m[1]) keep(m[1], source);
        for (const n of (m[2] ?? '').split(',')) keep(n.replace(/:.*$/, ''), source);
      }
      for (const m of code.matchAll(JVM_IMPORT)) keep(m[2], source);
      for (const m of code.matchAll(RUST_USE)) for (const n of (m[1] ?? m[2]).split(',')) keep(n, source);
    }
  }
}

/**
 * The text of each closed fenced block, in one pass over the lines (a fence left open holds no
 * code: a paste cut short is not a program), up to MAX_CODE_BYTES in all.
 */
function fencedCode(text: string): string[] {
  const blocks: string[] = [];
  let open: string | undefined;
  let lines: string[] = [];
  let budget = MAX_CODE_BYTES;
  for (const line of text.split('\n')) {
    const fence = FENCE_LINE.exec(line)?.[1];
    if (open === undefined) {
      if (fence) ((open = fence), (lines = []));
      continue;
    }
    if (fence && fence[0] === open[0] && fence.length >= open.length && line.trim() === fence) {
      blocks.push(lines.join('\n'));
      budget -= lines.reduce((n, l) => n + l.length + 1, 0);
      if (budget <= 0) break;
      open = undefined;
      continue;
    }
    if (lines.length < 2_000) lines.push(line.slice(0, 1_000));
  }
  return blocks;
}
