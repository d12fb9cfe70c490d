/** A string value of a JSON document with its key path and the offsets of its content (inside the quotes). */
export interface JsonStringValue {
  path: string[];
  value: string;
  start: number;
  end: number;
}

/**
 * Every string value of a JSON text with its key path, by a small scanner that keeps offsets
 * (JSON.parse keeps none). Returns undefined when the text is not JSON it can follow.
 */
export function jsonStringValues(text: string): JsonStringValue[] | undefined {
  const out: JsonStringValue[] = [];
  let i = 0;
  const ws = () => {
    while (i < text.length && /\s/.test(text[i])) i++;
  };
  const str = (): { value: string; start: number; end: number } => {
    const start = ++i;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    if (i >= text.length) throw new Error('unterminated string');
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
        if (text[i] !== '"') throw new Error('expected a key');
        const key = str().value;
        ws();
        if (text[i++] !== ':') throw new Error('expected :');
        value([...path, key]);
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === '}') {
          i++;
          return;
        } else throw new Error('expected , or }');
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
        } else throw new Error('expected , or ]');
      }
    } else {
      const m = /^(?:true|false|null|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(text.slice(i, i + 64));
      if (!m) throw new Error('unexpected token');
      i += m[0].length;
    }
  };
  try {
    if (text.charCodeAt(0) === 0xfeff) i = 1;
    value([]);
    return out;
  } catch {
    return undefined;
  }
}
