import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { RECIPE_NAMES } from '../src/core/task/recipe-steps.js';

/** `case.yaml`: where a corpus case comes from and the task a maintainer would have written for it. */
export const CaseManifest = z.strictObject({
  id: z.string().regex(/^[a-z0-9][a-z0-9-]*$/),
  repository: z.string().regex(/^[\w.-]+\/[\w.-]+$/, 'owner/name'),
  url: z.url(),
  commit: z.string().regex(/^[0-9a-f]{40}$/),
  parent: z.string().regex(/^[0-9a-f]{40}$/),
  language: z.enum(['java', 'kotlin', 'go', 'typescript', 'javascript', 'python']),
  recipes: z.array(z.enum(RECIPE_NAMES)).min(1),
  license: z.string().min(1),
  /** `extracted`: before/after are the commit's own files; `reconstructed`: authored files that make the same change. */
  fixtures: z.enum(['extracted', 'reconstructed']),
  /** What makes the case hard, or what it checks beyond the edit itself. */
  notes: z.string().optional(),
  /** The refresh command the run should print for each lockfile the human changed, by lockfile path. */
  refresh: z.record(z.string(), z.string()).optional(),
  task: z.string().min(1),
});
export type CaseManifest = z.infer<typeof CaseManifest>;

export interface CorpusCase {
  manifest: CaseManifest;
  dir: string;
  /** Repository-relative path to content, at the parent commit. */
  before: Map<string, Buffer>;
  /** The same paths at the commit; deleted files are absent. */
  after: Map<string, Buffer>;
}

/** Every file under `dir`, by its `/`-separated path relative to `dir`. */
export function readTree(dir: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  const walk = (at: string) => {
    let entries: string[];
    try {
      entries = readdirSync(at).sort();
    } catch {
      return;
    }
    for (const name of entries) {
      const path = join(at, name);
      if (statSync(path).isDirectory()) walk(path);
      else files.set(relative(dir, path).split(sep).join('/'), readFileSync(path));
    }
  };
  walk(dir);
  return new Map([...files].sort(([a], [b]) => (a < b ? -1 : 1)));
}

export function loadCase(dir: string): CorpusCase {
  const text = readFileSync(join(dir, 'case.yaml'), 'utf8');
  const parsed = CaseManifest.safeParse(parseYaml(text));
  if (!parsed.success) throw new Error(`${join(dir, 'case.yaml')}: ${z.prettifyError(parsed.error)}`);
  return { manifest: parsed.data, dir, before: readTree(join(dir, 'before')), after: readTree(join(dir, 'after')) };
}

/** The cases of a corpus directory (one sub-directory with a `case.yaml` each), in id order; `only` filters by id. */
export function loadCorpus(root: string, only: readonly string[] = []): CorpusCase[] {
  const ids = readdirSync(root)
    .filter((name) => statSync(join(root, name)).isDirectory())
    .sort();
  const cases = ids.filter((id) => only.length === 0 || only.includes(id)).map((id) => loadCase(join(root, id)));
  for (const c of cases) {
    if (c.manifest.id !== relative(root, c.dir)) throw new Error(`${c.dir}: case.yaml id ${c.manifest.id} differs from its directory`);
  }
  return cases;
}
