import type { PathClass } from '../paths/path-rules.js';
import type { EvidenceCollector } from './evidence.js';
import type { FileContents } from './file-contents.js';
import { baseName, dirName, extensionOf } from '../paths/path-classes.js';
import type { ManifestRecord, MapWarning, ModuleRecord, NavigationHint } from './repo-map-schema.js';

/** At most this many hints of one kind go into the map (the rest are found by queries). */
export const MAX_HINTS_PER_KIND = 1000;
/** At most this many API candidates are read to confirm a framework signal. */
export const MAX_API_READS = 3000;

interface ApiSignal {
  framework: string;
  pattern: RegExp;
  reason: string;
}

const API_SIGNALS: Record<string, ApiSignal[]> = {
  java: [
    { framework: 'jax-rs', pattern: /@Path\s*\(/, reason: 'JAX-RS resource detected via @Path annotation' },
    { framework: 'spring', pattern: /@(RestController|Controller)\b/, reason: 'Spring controller detected via @RestController/@Controller' },
    { framework: 'spring', pattern: /@(Get|Post|Put|Delete|Patch|Request)Mapping\b/, reason: 'Spring request mapping annotation' },
  ],
  js: [
    {
      framework: 'express',
      pattern: /\b(express\.Router|Router)\s*\(|\b(app|router)\.(get|post|put|delete|patch|use)\s*\(\s*['"`]/,
      reason: 'express router detected (Router() or app.get/post with a path)',
    },
    { framework: 'fastify', pattern: /\bfastify\.(get|post|put|delete|route)\s*\(/, reason: 'fastify route' },
    { framework: 'nestjs', pattern: /@Controller\s*\(/, reason: 'NestJS controller' },
  ],
  python: [
    { framework: 'fastapi', pattern: /@(app|router)\.(get|post|put|delete|patch)\s*\(/, reason: 'FastAPI route decorator' },
    { framework: 'flask', pattern: /@(app|bp|blueprint)\.route\s*\(/, reason: 'Flask route decorator' },
    { framework: 'django', pattern: /\burlpatterns\s*=/, reason: 'Django urlpatterns' },
  ],
  go: [
    { framework: 'net/http', pattern: /\bhttp\.(HandleFunc|Handle)\s*\(|\bmux\.(HandleFunc|Handle)\s*\(/, reason: 'net/http handler registration' },
    { framework: 'gin', pattern: /\.(GET|POST|PUT|DELETE)\s*\(\s*"/, reason: 'gin/echo route registration' },
  ],
};

function apiFamily(path: string): keyof typeof API_SIGNALS | undefined {
  const name = baseName(path);
  const ext = extensionOf(path);
  if ((ext === 'java' || ext === 'kt') && /(Resource|Controller|Endpoint|Api|Rest|Router)\w*\.(java|kt)$/.test(name)) return 'java';
  if (/^[cm]?[jt]sx?$/.test(ext) && /(route|router|routes|controller|api|server|app|handler)/i.test(name)) return 'js';
  if (ext === 'py' && /^(views|routes|api|app|main|urls|endpoints|server)\.py$/.test(name)) return 'python';
  if (ext === 'go' && /(handler|server|routes|router|api|main)/i.test(name)) return 'go';
  return undefined;
}

const CONFIG_NAME =
  /^(application|bootstrap)([-.][\w-]+)?\.(ya?ml|properties)$|^settings\.py$|^\.env\.example$|^[\w-]+\.config\.[cm]?[jt]s$|^(appsettings)(\.[\w-]+)?\.json$|^config\.(ya?ml|json|toml)$/;
const SCHEMA_NAME = /\.(graphql|gql|proto|avsc|prisma|xsd)$|(^|\/)schema\.sql$|\.schema\.json$/;
const MIGRATION_PATH = /(^|\/)(db\/migrations?|migrations|flyway|liquibase|alembic\/versions)\//;

export interface HintInput {
  paths: readonly string[];
  isIgnored: (path: string) => boolean;
  manifests: ManifestRecord[];
  modules: ModuleRecord[];
  contents: FileContents;
  evidence: EvidenceCollector;
  /** Each path's class by the path rules. */
  classOf: (path: string) => PathClass;
}

type DetectedHint = Omit<NavigationHint, 'origin'>;

const TEST_NAME = /(Test|Tests|IT|Spec)\.\w+$|\.(test|spec)\.\w+$|(^|\/)test_[^/]+\.py$|_test\.(go|py)$/;
const RESOURCE_CONFIG = /(^|\/)src\/main\/resources\/[^/]+\.(ya?ml|properties)$/;
const ENTRY_NAME = /^(main\.go|__main__\.py|manage\.py|main\.py|app\.py|main\.[cm]?[jt]s|index\.[cm]?[jt]s|server\.[cm]?[jt]s)$/;
const JVM_ENTRY_NAME = /(Application|Main|App)\.(java|kt)$/;

/** What the path alone says (generated, migration, test, schema, config), in that order of precedence. */
function pathHint(
  path: string,
  name: string,
  pathClass: PathClass,
  underTestRoot: (path: string) => boolean,
  evidence: EvidenceCollector,
): DetectedHint | undefined {
  if (pathClass === 'generated')
    return {
      kind: 'generated',
      path,
      confidence: 0.9,
      reason: 'generated-file naming rule',
      evidenceRefs: [evidence.fromPattern(path, 'hints/generated', 'generated')],
    };
  if (MIGRATION_PATH.test(path)) {
    return {
      kind: 'migration',
      path,
      confidence: 0.8,
      reason: /V\d+__/.test(name) ? 'Flyway-style migration path' : 'migration directory',
      evidenceRefs: [evidence.fromPattern(path, 'hints/migration', MIGRATION_PATH.source)],
    };
  }
  if (pathClass === 'test' || underTestRoot(path)) {
    const byName = TEST_NAME.test(path);
    return {
      kind: 'test',
      path,
      confidence: byName ? 0.86 : 0.7,
      reason: byName ? 'test naming convention' : 'under a test root',
      evidenceRefs: [evidence.fromPattern(path, 'hints/test', byName ? 'test-name' : 'test-root')],
    };
  }
  if (SCHEMA_NAME.test(path))
    return {
      kind: 'schema',
      path,
      confidence: 0.8,
      reason: `schema file (.${extensionOf(path)})`,
      evidenceRefs: [evidence.fromPattern(path, 'hints/schema', SCHEMA_NAME.source)],
    };
  if (CONFIG_NAME.test(name) || RESOURCE_CONFIG.test(path))
    return {
      kind: 'config',
      path,
      confidence: 0.74,
      reason: 'service runtime configuration',
      evidenceRefs: [evidence.fromPattern(path, 'hints/config', CONFIG_NAME.source)],
    };
  return undefined;
}

/** Whether a path is under a module's test root that is not also a source root. */
function testRootMatcher(modules: ModuleRecord[]): (path: string) => boolean {
  const testRoots = new Set(modules.flatMap((m) => m.testRoots.filter((r) => !m.sourceRoots.includes(r))));
  return (path) => {
    for (let d = dirName(path); d !== ''; d = dirName(d)) if (testRoots.has(d)) return true;
    return false;
  };
}

/** Hints from paths alone; files an API or an entrypoint might be in are returned to be read. */
function pathHints(
  input: HintInput,
  add: (h: DetectedHint) => void,
): { apiCandidates: { path: string; family: keyof typeof API_SIGNALS }[]; entryCandidates: string[] } {
  const underTestRoot = testRootMatcher(input.modules);
  const apiCandidates: { path: string; family: keyof typeof API_SIGNALS }[] = [];
  const entryCandidates: string[] = [];
  for (const path of input.paths) {
    if (input.isIgnored(path)) continue;
    const name = baseName(path);
    const hint = pathHint(path, name, input.classOf(path), underTestRoot, input.evidence);
    if (hint) {
      add(hint);
      continue;
    }
    const family = apiFamily(path);
    if (family) apiCandidates.push({ path, family });
    if (ENTRY_NAME.test(name) || JVM_ENTRY_NAME.test(name)) entryCandidates.push(path);
  }
  return { apiCandidates, entryCandidates };
}

/** A package.json's `main` and `bin`: entrypoints when the file is in the tree (not build output). */
function packageEntrypoints(m: ManifestRecord, contents: FileContents, add: (h: DetectedHint) => void): void {
  for (const key of ['main', 'bin'] as const) {
    const target = m.facts?.[key];
    if (!target) continue;
    const resolved = [dirName(m.path), target.replace(/^\.\//, '')].filter(Boolean).join('/');
    if (!contents.workspace.entry(resolved)) continue;
    add({ kind: 'entrypoint', path: resolved, confidence: 0.9, reason: `package.json "${key}" field`, evidenceRefs: [m.evidenceRef] });
  }
}

function manifestHints(manifests: ManifestRecord[], contents: FileContents, add: (h: DetectedHint) => void): void {
  for (const m of manifests) {
    if (m.kind === 'openapi' && !m.parseError)
      add({ kind: 'schema', path: m.path, confidence: 0.9, reason: `OpenAPI ${m.facts?.specVersion ?? ''} document`.trim(), evidenceRefs: [m.evidenceRef] });
    if (m.kind === 'package.json') packageEntrypoints(m, contents, add);
  }
}

/** API candidates confirmed by a framework signal in their text (at most MAX_API_READS read). */
async function apiHints(candidates: { path: string; family: keyof typeof API_SIGNALS }[], input: HintInput, add: (h: DetectedHint) => void): Promise<void> {
  const { contents, evidence } = input;
  let reads = 0;
  for (const c of candidates) {
    if (reads++ >= MAX_API_READS) break;
    const text = await contents.text(c.path);
    if (text === undefined) continue;
    const signal = API_SIGNALS[c.family].find((s) => s.pattern.test(text));
    if (signal)
      add({
        kind: 'api',
        path: c.path,
        confidence: 0.92,
        reason: signal.reason,
        framework: signal.framework,
        evidenceRefs: [evidence.fromBlob(c.path, 'parsed_symbol', `hints/api/${signal.framework}`, contents.workspace.entry(c.path)?.oid)],
      });
  }
}

/** Entry signals in a file's text, by extension, first match wins: the reason and the confidence. */
const ENTRY_SIGNALS: { applies: (ext: string, path: string) => boolean; test: (text: string) => boolean; reason: string; confidence: number }[] = [
  {
    applies: (ext) => ext === 'go',
    test: (text) => /^package main\b/m.test(text) && /\bfunc main\s*\(/.test(text),
    reason: 'Go package main with func main()',
    confidence: 0.95,
  },
  {
    applies: (ext) => ext === 'java' || ext === 'kt',
    test: (text) => /@SpringBootApplication\b/.test(text),
    reason: 'Spring Boot application (@SpringBootApplication)',
    confidence: 0.95,
  },
  { applies: (ext) => ext === 'java', test: (text) => /public\s+static\s+void\s+main\s*\(/.test(text), reason: 'Java main method', confidence: 0.9 },
  { applies: (ext) => ext === 'py', test: (text) => /__name__\s*==\s*['"]__main__['"]/.test(text), reason: 'Python __main__ guard', confidence: 0.85 },
  {
    applies: (_, path) => baseName(path) === '__main__.py' || baseName(path) === 'manage.py',
    test: () => true,
    reason: 'Python module entrypoint by name',
    confidence: 0.8,
  },
];

async function entryHints(candidates: string[], input: HintInput, add: (h: DetectedHint) => void): Promise<void> {
  const { contents, evidence } = input;
  const refs = (path: string): string[] => [evidence.fromBlob(path, 'parsed_symbol', 'hints/entrypoint', contents.workspace.entry(path)?.oid)];
  for (const path of candidates) {
    const ext = extensionOf(path);
    // A JavaScript/TypeScript entry is known by its path alone: no read (pnpm has ~400 index.ts).
    if (/^[cm]?[jt]s$/.test(ext)) {
      if (/(^|\/)(src\/)?(main|index|server)\.[cm]?[jt]s$/.test(path))
        add({ kind: 'entrypoint', path, confidence: 0.6, reason: 'conventional JavaScript/TypeScript entry file', evidenceRefs: refs(path) });
      continue;
    }
    const text = await contents.text(path);
    if (text === undefined) continue;
    const signal = ENTRY_SIGNALS.find((s) => s.applies(ext, path) && s.test(text));
    if (signal) add({ kind: 'entrypoint', path, confidence: signal.confidence, reason: signal.reason, evidenceRefs: refs(path) });
  }
}

/** One hint per kind and path (the first), best first within a kind, at most MAX_HINTS_PER_KIND each; kinds in order. */
function rankHints(hints: NavigationHint[], warnings: MapWarning[]): NavigationHint[] {
  const byKind = new Map<string, NavigationHint[]>();
  const seen = new Set<string>();
  for (const h of hints) {
    const k = `${h.kind}\u0000${h.path}`;
    if (seen.has(k)) continue;
    seen.add(k);
    const list = byKind.get(h.kind) ?? [];
    list.push(h);
    byKind.set(h.kind, list);
  }
  const out: NavigationHint[] = [];
  for (const [kind, list] of [...byKind].sort(([a], [b]) => (a < b ? -1 : 1))) {
    list.sort((a, b) => b.confidence - a.confidence || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    if (list.length > MAX_HINTS_PER_KIND)
      warnings.push({ code: 'HINTS_TRUNCATED', message: `${list.length} ${kind} hints, the first ${MAX_HINTS_PER_KIND} are kept` });
    out.push(...list.slice(0, MAX_HINTS_PER_KIND));
  }
  return out;
}

/**
 * Deterministic navigation hints: from the path alone where that suffices (tests, configs,
 * schemas, migrations, generated files), and from a bounded read of a few candidates where a
 * framework signal is needed (APIs, entrypoints). Every hint carries its evidence.
 */
export async function buildNavigationHints(input: HintInput): Promise<{ hints: NavigationHint[]; warnings: MapWarning[] }> {
  const hints: NavigationHint[] = [];
  const add = (h: DetectedHint): void => {
    hints.push({ ...h, origin: 'detected' });
  };
  const { apiCandidates, entryCandidates } = pathHints(input, add);
  manifestHints(input.manifests, input.contents, add);
  await apiHints(apiCandidates, input, add);
  await entryHints(entryCandidates, input, add);
  const warnings: MapWarning[] = [];
  if (apiCandidates.length > MAX_API_READS)
    warnings.push({ code: 'API_CANDIDATES_TRUNCATED', message: `only the first ${MAX_API_READS} of ${apiCandidates.length} API candidates were read` });
  return { hints: rankHints(hints, warnings), warnings };
}
