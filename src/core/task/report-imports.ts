import type { SearchTerm } from './task-contract.js';

type Add = (term: string, kind: SearchTerm['kind'], source: string) => void;

/** A fenced block of a report (```lang … ```); the text between is what the reporter ran. */
const FENCE = /^[ \t]*(`{3,}|~{3,})[^\n]*\n([\s\S]*?)^[ \t]*\1[ \t]*$/gm;
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
    let budget = MAX_CODE_BYTES;
    for (const block of text.matchAll(FENCE)) {
      const code = block[2].slice(0, Math.max(0, budget));
      budget -= code.length;
      for (const m of code.matchAll(PY_FROM)) for (const n of m[2].split(',')) keep(n, source);
      for (const m of code.matchAll(JS_NAMED)) {
        if (m[1]) keep(m[1], source);
        for (const n of (m[2] ?? '').split(',')) keep(n.replace(/:.*$/, ''), source);
      }
      for (const m of code.matchAll(JVM_IMPORT)) keep(m[2], source);
      for (const m of code.matchAll(RUST_USE)) for (const n of (m[1] ?? m[2]).split(',')) keep(n, source);
      if (budget <= 0) break;
    }
  }
}
