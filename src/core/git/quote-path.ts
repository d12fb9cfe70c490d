const encoder = new TextEncoder();
const ESCAPES: Record<number, string> = { 7: '\\a', 8: '\\b', 9: '\\t', 10: '\\n', 11: '\\v', 12: '\\f', 13: '\\r', 34: '\\"', 92: '\\\\' };

/**
 * Git's `quote_c_style` with core.quotePath on: a name containing `"`, `\`, a control byte or
 * any byte >= 0x80 is wrapped in double quotes with C escapes and octal UTF-8 bytes; any other
 * name is returned as is.
 */
export function quoteGitPath(name: string): string {
  const bytes = encoder.encode(name);
  let needs = false;
  for (const b of bytes) if (b < 0x20 || b >= 0x7f || b === 34 || b === 92) needs = true;
  if (!needs) return name;
  let out = '"';
  for (const b of bytes) {
    if (ESCAPES[b]) out += ESCAPES[b];
    else if (b < 0x20 || b >= 0x7f) out += `\\${b.toString(8).padStart(3, '0')}`;
    else out += String.fromCharCode(b);
  }
  return `${out}"`;
}

/** Inverse of `quoteGitPath` for a name read back from a patch (quoted or not). */
export function unquoteGitPath(text: string): string {
  if (!text.startsWith('"')) return text;
  const bytes: number[] = [];
  const rev: Record<string, number> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13, '"': 34, '\\': 92 };
  for (let i = 1; i < text.length - 1; i++) {
    const c = text[i];
    if (c !== '\\') {
      bytes.push(...encoder.encode(c));
      continue;
    }
    const next = text[i + 1];
    if (/[0-7]/.test(next)) {
      bytes.push(parseInt(text.slice(i + 1, i + 4), 8));
      i += 3;
    } else {
      bytes.push(rev[next] ?? next.charCodeAt(0));
      i += 1;
    }
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}
