import { MAP_PROFILES, type MapProfile } from '../engines/recipe/recipe.js';
import { recipeFor } from '../engines/recipe/registry.js';
import type { TaskContract } from '../task/task-contract.js';
import { baseName, dirName, isTestData } from '../paths/path-classes.js';
import { ownersFor } from './codeowners.js';
import type { RepoMap } from './repo-map-schema.js';

/** Documented estimate: one token per 4 characters of the JSON rendering. */
export const CHARS_PER_TOKEN = 4;

export function estimateTokens(value: unknown): number {
  return Math.ceil(JSON.stringify(value).length / CHARS_PER_TOKEN);
}

/** The map's focus for a task: the recipes name theirs. */
export type TaskProfile = MapProfile;

export interface RepoMapProjection {
  baseCommitSha: string;
  profile: TaskProfile;
  tokenBudget: number;
  estimatedTokens: number;
  sections: Record<string, unknown>;
  /** Sections left out or cut short to respect the budget. */
  omitted: string[];
}

/**
 * Most items a list section shows however large the budget: past these, a long list would
 * crowd out the sections after it (modules, build commands) for little gain.
 */
export const SECTION_ITEM_CAPS: Readonly<Record<string, number>> = { targets: 30, tests: 20, highRiskPaths: 20, configs: 20 };

/** A selected target as target selection ranked it, with why. */
export interface ProjectionTarget {
  path: string;
  rank: number;
  allowedToEdit: boolean;
  reasons: readonly string[];
}

/** What the projection adds beyond the map itself: the task's selected targets. */
export interface ProjectionFocus {
  targets?: readonly ProjectionTarget[];
}

/** Whether a path shares a directory or a file stem with one of the targets. */
function nearTargets(targets: readonly ProjectionTarget[]): (path: string) => boolean {
  const stem = (p: string) =>
    baseName(p)
      .replace(/\..*$/, '')
      .replace(/^test_|_test$|Tests?$|\.(test|spec)$/g, '')
      .toLowerCase();
  const dirs = new Set(targets.map((t) => dirName(t.path)));
  const stems = new Set(targets.map((t) => stem(t.path)).filter((s) => s.length > 2));
  return (path) => dirs.has(dirName(path)) || stems.has(stem(path));
}

/** The most specific profile a step asks for (MAP_PROFILES is in that order); a task naming symbols is a symbol change. */
export function taskProfile(task: TaskContract): TaskProfile {
  const asked = new Set<TaskProfile>(task.steps.map((s) => recipeFor(s).mapProfile));
  if (task.searchTerms.some((t) => t.kind === 'symbol')) asked.add('symbol-change');
  return MAP_PROFILES.find((profile) => asked.has(profile)) ?? 'general';
}

/**
 * The slice of the map that matters for a task, in priority order, within
 * `tokenBudget` tokens as `estimateTokens` counts them: sections are added whole while they
 * fit; a list that does not fit is cut to the longest prefix that does; the rest is named in
 * `omitted`. The result's own estimate never exceeds the budget once the budget covers the
 * skeleton (commit, profile and the names of the omitted sections: about 70 tokens).
 */
export function projectRepoMap(map: RepoMap, task: TaskContract, tokenBudget: number, focus: ProjectionFocus = {}): RepoMapProjection {
  const profile = taskProfile(task);
  const packages = task.steps.flatMap((s) => recipeFor(s).dependency(s) ?? []);
  const modules = map.modules.map((m) => ({
    id: m.id,
    path: m.path,
    name: m.name,
    buildSystem: m.buildSystem,
    language: m.language,
    sourceRoots: m.sourceRoots,
    testRoots: m.testRoots,
    dependsOn: m.dependsOn,
  }));
  const build = map.build.map((b) => ({
    module: b.moduleId,
    compile: b.compile?.argv.join(' '),
    test: b.unitTest?.argv.join(' '),
    focused: b.focusedTestTemplate?.argv.join(' '),
    runner: b.testRunner?.reason,
    needsNetwork: b.needsNetwork,
  }));
  const highRisk = map.risk.paths
    .filter((r) => (r.level === 'high' || r.level === 'blocked') && !isTestData(r.path))
    .map((r) => `${r.path}${r.isDirectory ? '/**' : ''} (${r.level}: ${r.reason})`);
  // Test inputs and data never fill the list; tests near the targets come first.
  const near = nearTargets(focus.targets ?? []);
  const hints = (kinds: string[]): unknown[] =>
    map.navigationHints
      .filter((h) => kinds.includes(h.kind) && !isTestData(h.path))
      .map((h, i) => ({ hint: { kind: h.kind, path: h.path, reason: h.reason }, first: near(h.path) ? 0 : 1, i }))
      .sort((a, b) => a.first - b.first || a.i - b.i)
      .map((h) => h.hint);
  const ordered: [string, unknown][] = [
    ['identity', { commit: map.baseCommitSha, languages: map.languages.slice(0, 5).map((l) => `${l.language} (${l.files})`) }],
  ];
  // The selected targets come right after the identity whatever the profile: they are what the task is about.
  if (focus.targets?.length) {
    const targets = [...focus.targets]
      .sort((a, b) => a.rank - b.rank || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
      .map((t) => {
        const owners = ownersFor(map.ownership.rules, t.path).owners;
        return { path: t.path, rank: t.rank, allowedToEdit: t.allowedToEdit, reasons: [...t.reasons], ...(owners.length ? { owners } : {}) };
      });
    ordered.push(['targets', targets]);
  }
  if (profile === 'dependency-upgrade') {
    const locations = map.manifests
      .filter((m) => m.dependencies.some((d) => packages.some((p) => d.name === p || d.name.endsWith(`:${p}`) || p.endsWith(`:${d.name.split(':').pop()}`))))
      .map((m) => ({
        path: m.path,
        matches: m.dependencies
          .filter((d) => packages.some((p) => d.name === p || d.name.endsWith(`:${p}`)))
          .map((d) => `${d.name}@${d.version ?? '?'} (${d.kind})`),
      }));
    ordered.push(
      ['dependencyLocations', locations],
      ['build', build],
      ['modules', modules],
      ['manifests', map.manifests.map((m) => m.path)],
      ['highRiskPaths', highRisk],
      ['tests', hints(['test'])],
    );
  } else if (profile === 'import-migration' || profile === 'symbol-change') {
    ordered.push(
      ['modules', modules],
      ['apis', hints(['api', 'entrypoint'])],
      ['build', build],
      ['highRiskPaths', highRisk],
      ['tests', hints(['test'])],
      ['configs', hints(['config'])],
    );
  } else {
    ordered.push(
      ['modules', modules],
      ['build', build],
      ['entrypoints', hints(['entrypoint', 'api'])],
      ['importantFiles', map.filesystem.importantFiles],
      ['highRiskPaths', highRisk],
      ['configs', hints(['config', 'schema', 'migration'])],
      ['tests', hints(['test'])],
    );
  }

  const sections: Record<string, unknown> = {};
  const omitted: string[] = [];
  // While filling, the estimate field holds the budget: the final estimate has no more digits.
  const base = { baseCommitSha: map.baseCommitSha, profile, tokenBudget, estimatedTokens: tokenBudget, sections, omitted: [] as string[] };
  // Room is kept for naming every section not yet placed as omitted, so a long list early on
  // cannot take the room the names of the later sections need.
  const reserve = ordered.map(([name, value]) => (Array.isArray(value) ? `${name}: ${value.length} of ${value.length} items` : name));
  const used = (next: number): number => estimateTokens({ ...base, sections, omitted: [...omitted, ...reserve.slice(next)] });
  ordered.forEach(([name, whole], i) => {
    const cap = SECTION_ITEM_CAPS[name];
    const value = Array.isArray(whole) && cap !== undefined && whole.length > cap ? whole.slice(0, cap) : whole;
    const total = Array.isArray(whole) ? whole.length : 0;
    sections[name] = value;
    if (used(i + 1) <= tokenBudget) {
      if (value !== whole) omitted.push(`${name}: ${total - cap!} of ${total} items`);
      return;
    }
    if (Array.isArray(value)) {
      let lo = 0;
      let hi = value.length;
      while (lo < hi) {
        const mid = Math.ceil((lo + hi) / 2);
        sections[name] = value.slice(0, mid);
        if (used(i + 1) <= tokenBudget) lo = mid;
        else hi = mid - 1;
      }
      if (lo > 0) {
        sections[name] = value.slice(0, lo);
        omitted.push(`${name}: ${total - lo} of ${total} items`);
        return;
      }
    }
    delete sections[name];
    omitted.push(name);
  });
  const result: RepoMapProjection = { ...base, estimatedTokens: 0, sections, omitted };
  // Names of omitted sections take room too: drop the lowest-priority section until it all fits.
  const settle = (): number => {
    for (let i = 0; i < 4; i++) {
      const next = estimateTokens(result);
      if (next === result.estimatedTokens) break;
      result.estimatedTokens = next;
    }
    return result.estimatedTokens;
  };
  while (settle() > tokenBudget && Object.keys(sections).length > 0) {
    const last = Object.keys(sections).pop()!;
    delete sections[last];
    for (let i = omitted.length - 1; i >= 0; i--) if (omitted[i].startsWith(`${last}:`)) omitted.splice(i, 1);
    omitted.push(last);
  }
  settle();
  return result;
}
