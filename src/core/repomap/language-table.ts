import * as linguist from 'linguist-languages';
import { baseName, extensionOf } from '../paths/path-classes.js';

export interface LanguageGuess {
  language: string;
  type: string;
  /** 1 when the extension belongs to one language only; 1/n when n languages claim it. */
  confidence: number;
}

interface LinguistEntry {
  name: string;
  type: string;
  extensions?: readonly string[];
  filenames?: readonly string[];
}

let byExtension: Map<string, LanguageGuess> | undefined;
let byFilename: Map<string, LanguageGuess> | undefined;

/**
 * The extension and filename tables built once from GitHub Linguist's data (the
 * `linguist-languages` package). Where several languages claim an extension, the one whose
 * primary (first) extension it is wins, then the language with the
 * most extensions (the widely used one), then programming before data and prose.
 */
function tables(): { ext: Map<string, LanguageGuess>; names: Map<string, LanguageGuess> } {
  if (byExtension && byFilename) return { ext: byExtension, names: byFilename };
  const claims = new Map<string, { entry: LinguistEntry; primary: boolean }[]>();
  const nameClaims = new Map<string, LinguistEntry[]>();
  const entries = Object.values(linguist as unknown as Record<string, LinguistEntry>).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    (entry.extensions ?? []).forEach((e, i) => {
      const key = e.slice(1).toLowerCase();
      const list = claims.get(key) ?? [];
      list.push({ entry, primary: i === 0 });
      claims.set(key, list);
    });
    for (const f of entry.filenames ?? []) {
      const list = nameClaims.get(f) ?? [];
      list.push(entry);
      nameClaims.set(f, list);
    }
  }
  const typeRank = (t: string): number => (t === 'programming' ? 0 : t === 'markup' ? 1 : t === 'data' ? 2 : 3);
  byExtension = new Map();
  for (const [ext, list] of claims) {
    const sorted = [...list].sort(
      (a, b) =>
        Number(b.primary) - Number(a.primary) ||
        (b.entry.extensions?.length ?? 0) - (a.entry.extensions?.length ?? 0) ||
        typeRank(a.entry.type) - typeRank(b.entry.type),
    );
    const best = sorted[0];
    const primaries = list.filter((c) => c.primary).length;
    const confidence = list.length === 1 ? 1 : best.primary && primaries === 1 ? 0.8 : 1 / list.length;
    byExtension.set(ext, { language: best.entry.name, type: best.entry.type, confidence });
  }
  byFilename = new Map();
  for (const [name, list] of nameClaims) {
    const best = [...list].sort((a, b) => typeRank(a.type) - typeRank(b.type))[0];
    byFilename.set(name, { language: best.name, type: best.type, confidence: 1 / list.length });
  }
  return { ext: byExtension, names: byFilename };
}

/** Linguist's language for a path by filename, then extension; undefined when unknown. */
export function languageForPath(path: string): LanguageGuess | undefined {
  const { ext, names } = tables();
  return names.get(baseName(path)) ?? ext.get(extensionOf(path));
}
