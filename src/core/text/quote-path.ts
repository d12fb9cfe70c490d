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

/** Characters a terminal or a renderer acts on: C0 controls but tab, DEL, C1, and bidirectional overrides. */
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const CONTROLS = new RegExp(CONTROL.source, 'g');

/**
 * A file name for display only (terminal, pull request body, comments): C-quoted the way git
 * quotes it with core.quotePath off (`"a\033[31mb"`), so an ESC byte or a bidi override in a
 * name is shown, never acted on; other names, UTF-8 included, are returned unchanged. Git and
 * the object store always get the exact name, never this.
 */
export function displayPath(name: string): string {
  if (!CONTROL.test(name) && !/["\\\t]/.test(name)) return name;
  let out = '"';
  for (const char of name) {
    const code = char.codePointAt(0)!;
    if (ESCAPES[code]) out += ESCAPES[code];
    else if (CONTROL.test(char)) for (const b of encoder.encode(char)) out += `\\${b.toString(8).padStart(3, '0')}`;
    else out += char;
  }
  return `${out}"`;
}

/** Free text for a terminal or Markdown: control characters (ESC included) replaced by their octal escapes. */
export function escapeControls(text: string): string {
  return text.replace(CONTROLS, (char) => [...encoder.encode(char)].map((b) => `\\${b.toString(8).padStart(3, '0')}`).join(''));
}
