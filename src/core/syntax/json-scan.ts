/** A string value of a JSON document with its key path and the offsets of its content (inside the quotes). */
export interface JsonStringValue {
  path: string[];
  value: string;
  start: number;
  end: number;
}

/** Thrown inside the scanner with the offset where the text stops being JSON. */
class JsonScanError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

/**
 * Every string value of a JSON text with its key path, by a small scanner that keeps offsets
 * (JSON.parse keeps none). Returns undefined when the text is not JSON it can follow.
 */
export function jsonStringValues(text: string): JsonStringValue[] | undefined {
  const scanned = scanJson(text);
  return scanned.error ? undefined : scanned.values;
}

/** Scan a JSON text: its string values, or the offset and reason of the first error. */
export function scanJson(text: string): { values: JsonStringValue[]; error?: { offset: number; message: string } } {
  const out: JsonStringValue[] = [];
  let i = 0;
  const ws = () => {
    while (i < text.length && /\s/.test(text[i])) i++;
  };
  const str = (): { value: string; start: number; end: number } => {
    const start = ++i;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    if (i >= text.length) throw new JsonScanError('unterminated string', start - 1);
    const end = i++;
    return { value: JSON.parse(`"${text.slice(start, end)}"`) as string, start, end };
  };
  const value = (path: string[]): void => {
    ws();
    const ch = text[i];
    if (ch === '"') {
      const s = str();
      out.push({ path, ...s });
    } else if (ch === '{') {
      i++;
      ws();
      if (text[i] === '}') {
        i++;
        return;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') throw new JsonScanError('expected a key', i);
        const key = str().value;
        ws();
        if (text[i++] !== ':') throw new JsonScanError('expected :', i);
        value([...path, key]);
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === '}') {
          i++;
          return;
        } else throw new JsonScanError('expected , or }', i);
      }
    } else if (ch === '[') {
      i++;
      ws();
      if (text[i] === ']') {
        i++;
        return;
      }
      for (let n = 0; ; n++) {
        value([...path, String(n)]);
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === ']') {
          i++;
          return;
        } else throw new JsonScanError('expected , or ]', i);
      }
    } else {
      const m = /^(?:true|false|null|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(text.slice(i, i + 64));
      if (!m) throw new JsonScanError('unexpected token', i);
      i += m[0].length;
    }
  };
  try {
    if (text.charCodeAt(0) === 0xfeff) i = 1;
    value([]);
    ws();
    if (i < text.length) throw new JsonScanError('unexpected text after the value', i);
    return { values: out };
  } catch (error) {
    if (error instanceof JsonScanError) return { values: out, error: { offset: Math.min(error.offset, text.length), message: error.message } };
    return { values: out, error: { offset: i, message: error instanceof Error ? error.message : String(error) } };
  }
}
