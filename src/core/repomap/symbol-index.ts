import type { SymbolTag, SyntaxService } from '../syntax/types.js';
import type { FileContents } from './file-contents.js';

/** Tags of one file, keyed by language and blob SHA; shareable across maps of related commits. */
export type TagCache = Map<string, SymbolTag[]>;

/**
 * L2 of the dependency layer: symbols from tree-sitter tags, extracted lazily for the files a
 * query or target search names, never for the whole repository up front.
 */
export class SymbolIndex {
  extracted = 0;

  constructor(
    private readonly syntax: SyntaxService,
    private readonly contents: FileContents,
    private readonly cache: TagCache = new Map(),
  ) {}

  supports(path: string): boolean {
    return this.syntax.languageFor(path) !== undefined;
  }

  /** Tags of a file; undefined when its language is not supported or it is not text. */
  async tags(path: string): Promise<SymbolTag[] | undefined> {
    const language = this.syntax.languageFor(path);
    if (!language) return undefined;
    const text = await this.contents.text(path);
    if (text === undefined) return undefined;
    const key = this.contents.keyOf(path);
    const cacheKey = key ? `${language}:${key}` : undefined;
    if (cacheKey) {
      const hit = this.cache.get(cacheKey);
      if (hit) return hit;
    }
    const tags = this.syntax.extractTags(path, text);
    this.extracted++;
    if (cacheKey) this.cache.set(cacheKey, tags);
    return tags;
  }

  /** Definitions named `name` among `paths` (sorted by path, then line). */
  async definitions(name: string, paths: readonly string[]): Promise<{ path: string; tag: SymbolTag }[]> {
    return this.collect(paths, (t) => t.kind === 'definition' && t.name === name);
  }

  /** References, calls, imports and annotations naming `name` (an import matches on its last segment). */
  async references(name: string, paths: readonly string[]): Promise<{ path: string; tag: SymbolTag }[]> {
    return this.collect(paths, (t) => t.kind !== 'definition' && (t.name === name || (t.kind === 'import' && lastSegment(t.name) === name)));
  }

  private async collect(paths: readonly string[], keep: (t: SymbolTag) => boolean): Promise<{ path: string; tag: SymbolTag }[]> {
    const out: { path: string; tag: SymbolTag }[] = [];
    for (const path of [...paths].sort()) {
      for (const tag of (await this.tags(path)) ?? []) if (keep(tag)) out.push({ path, tag });
    }
    return out;
  }
}

export function lastSegment(name: string): string {
  const parts = name.split(/[./:]/).filter(Boolean);
  return parts[parts.length - 1] ?? name;
}
