import type { BumpDependencyStep } from '../../task/recipe-steps.js';
import { bumpCargo, bumpGoMod, bumpKeyedVersion, bumpNpm, bumpTableVersion, normalizePythonName, requirementLines, tomlLines } from './bump-ecosystems.js';
import { bumpGradle, bumpGradleCatalog, type TextBump } from './bump-gradle.js';
import { bumpMaven, bumpMavenProperty } from './bump-maven.js';
import type { RangeFlavour } from './constrain-range.js';
import { setupCfgRequirements, setupPyStrings } from './manifests/python-setup.js';
import type { PendingMavenProperty } from './recipe-types.js';

/** Where a manifest declares the package's constraint: the whole constraint text (empty: none written, inserted there). */
export interface ConstraintSite {
  start: number;
  end: number;
  current: string;
  flavour: RangeFlavour;
  label: string;
}

export interface ConstraintSites {
  sites: ConstraintSite[];
  notes: string[];
  /** Maven `${property}` versions defined in a parent pom. */
  pending: PendingMavenProperty[];
  /** go.mod requires the package (Go has no ranges). */
  goRequire?: boolean;
}

/*
 * The bump editors already find each manifest's version value of a package, with their rules
 * (sections, coordinates, catalog references, `${property}` versions). Given a `to` that carries
 * an operator they return every value's whole span with `to` as its text, unchanged otherwise:
 * that is how the constraint's span is found without a second reader per manifest kind.
 */
const LOCATE = '=locate';
const locate = (pkg: string): BumpDependencyStep => ({ recipe: 'bump-dependency', package: pkg, to: LOCATE });

function fromBump(text: string, bump: TextBump, flavour: RangeFlavour, label: string): ConstraintSites {
  const sites = bump.spans.map((s) => ({ start: s.start, end: s.end, current: text.slice(s.start, s.end), flavour, label }));
  return { sites, notes: bump.notes, pending: [] };
}

/** A Maven property defined in this pom (a parent of the pom that uses it): the span of its value. */
export function mavenPropertySite(text: string, property: string, label: string): ConstraintSite | undefined {
  const span = bumpMavenProperty(text, { property }, LOCATE).spans[0];
  return span && { start: span.start, end: span.end, current: text.slice(span.start, span.end), flavour: 'maven', label };
}

const PEP508 = /^(\s*)([A-Za-z0-9][A-Za-z0-9._-]*)(\s*\[[^\]]*\])?([^;#"'\\]*)/;

/**
 * One PEP 508 requirement string at `base`: the span of its specifiers (after the name and
 * extras, before a marker or comment), or an empty span right after the name when it has none
 * and `insert` allows adding one. A direct reference (`name @ url`) is left alone, said in `notes`.
 */
export function pep508Site(requirement: string, base: number, pkg: string, out: ConstraintSites, insert: boolean): void {
  const m = PEP508.exec(requirement);
  if (!m || normalizePythonName(m[2]) !== normalizePythonName(pkg)) return;
  const head = m[1].length + m[2].length + (m[3]?.length ?? 0);
  // Options after a requirement (`--hash=...`) are not part of its specifiers.
  const rest = m[4].split(/\s-/)[0];
  const specifiers = rest.trim();
  const label = pkg;
  if (specifiers === '') {
    if (insert) out.sites.push({ start: base + head, end: base + head, current: '', flavour: 'pep440', label });
    return;
  }
  if (specifiers.startsWith('@')) {
    out.notes.push(`${pkg} is a direct reference ("${requirement.trim()}"); left alone`);
    return;
  }
  if (!/^[<>=!~]/.test(specifiers)) return;
  const start = base + head + (rest.length - rest.trimStart().length);
  out.sites.push({ start, end: start + specifiers.length, current: specifiers, flavour: 'pep440', label });
}

/** Keys whose values are PEP 508 requirement lists in pyproject.toml, by table (`*`: any table). */
const REQUIREMENT_KEYS: Record<string, (key: string | undefined) => boolean> = {
  project: (key) => key === 'dependencies',
  'project.optional-dependencies': () => true,
  'dependency-groups': () => true,
  'build-system': (key) => key === 'requires',
};
const ANY_TABLE_KEYS = new Set(['dependencies', 'dev-dependencies', 'requires', 'constraint-dependencies', 'override-dependencies']);

/** Whether the value of `key` in `table` is a list of PEP 508 requirements. */
function isRequirementList(table: string, key: string | undefined): boolean {
  return key !== undefined && (ANY_TABLE_KEYS.has(key) || (REQUIREMENT_KEYS[table]?.(key) ?? false));
}

/** Brackets opened minus closed on a TOML line, strings and comments left out. */
function bracketDepth(line: string): number {
  const bare = line.replace(/"[^"\\]*"|'[^']*'/g, '').replace(/#.*/, '');
  let depth = 0;
  for (const c of bare) depth += c === '[' ? 1 : c === ']' ? -1 : 0;
  return depth;
}

/** pyproject.toml: Poetry dependency tables (Poetry syntax), and PEP 621/735 requirement lists (PEP 440). */
function pyprojectSites(text: string, pkg: string): ConstraintSites {
  const out: ConstraintSites = { sites: [], notes: [], pending: [] };
  const poetry: TextBump = { spans: [], notes: [] };
  const same = (key: string) => normalizePythonName(key) === normalizePythonName(pkg);
  let arrayKey: string | undefined;
  let depth = 0;
  let current = '';
  for (const { line, offset, table } of tomlLines(text)) {
    if (table !== current) [current, arrayKey, depth] = [table, undefined, 0];
    if (/^tool\.poetry\.(.*\.)?(dev-)?dependencies$/.test(table)) bumpKeyedVersion(poetry, line, offset, same, locate(pkg), false);
    const poetryTable = /^tool\.poetry\.(.*\.)?dependencies\.([^.]+)$/.exec(table);
    if (poetryTable && same(poetryTable[2])) bumpTableVersion(poetry, line, offset, locate(pkg), false);
    if (table.startsWith('tool.poetry')) continue;
    const key = /^\s*("?)([A-Za-z0-9_.-]+)\1\s*=/.exec(line)?.[2];
    if (key !== undefined) depth = 0;
    const inList = isRequirementList(table, key ?? arrayKey);
    const strings = /"([^"\\]*)"|'([^'\\]*)'/g;
    for (let m = strings.exec(line); inList && m; m = strings.exec(line)) pep508Site(m[1] ?? m[2], offset + m.index + 1, pkg, out, true);
    if (key !== undefined) arrayKey = key;
    depth += bracketDepth(line);
    if (depth <= 0) arrayKey = undefined;
  }
  out.sites.push(...fromBump(text, poetry, 'poetry', pkg).sites);
  out.notes.push(...poetry.notes);
  return out;
}

/** setup.py: requirement strings; a name without a version only inside a list (after `[` or `,`), never `name="..."`. */
function setupPySites(text: string, pkg: string): ConstraintSites {
  const out: ConstraintSites = { sites: [], notes: [], pending: [] };
  setupPyStrings(text, (content, base) => {
    const before = /[[,]\s*$/.test(text.slice(Math.max(0, base - 200), base - 1));
    pep508Site(content, base, pkg, out, before);
  });
  return out;
}

function pep440Sites(walk: (visit: (requirement: string, base: number) => void) => void, pkg: string): ConstraintSites {
  const out: ConstraintSites = { sites: [], notes: [], pending: [] };
  walk((requirement, base) => pep508Site(requirement, base, pkg, out, true));
  return out;
}

/** Every declaration of `pkg` in a manifest of this kind, with its constraint's span and syntax. */
export function constraintSites(kind: string, text: string, pkg: string): ConstraintSites {
  switch (kind) {
    case 'maven': {
      const bump = bumpMaven(text, locate(pkg));
      return { ...fromBump(text, bump, 'maven', pkg), pending: bump.pending.map(({ property }) => ({ property })) };
    }
    case 'gradle-build':
    case 'gradle-settings':
    case 'gradle-script':
      return fromBump(text, bumpGradle(text, locate(pkg)), 'maven', pkg);
    case 'gradle-catalog':
      return fromBump(text, bumpGradleCatalog(text, locate(pkg)), 'maven', pkg);
    case 'package.json':
      return fromBump(text, bumpNpm(text, locate(pkg)), 'npm', pkg);
    case 'cargo':
      return fromBump(text, bumpCargo(text, locate(pkg)), 'cargo', pkg);
    case 'go.mod':
      return { sites: [], notes: [], pending: [], goRequire: bumpGoMod(text, locate(pkg)).spans.length > 0 };
    case 'requirements':
      return pep440Sites((visit) => requirementLines(text, visit), pkg);
    case 'setup-cfg':
      return pep440Sites((visit) => setupCfgRequirements(text, visit), pkg);
    case 'setup-py':
      return setupPySites(text, pkg);
    case 'pyproject':
      return pyprojectSites(text, pkg);
    default:
      return { sites: [], notes: [], pending: [] };
  }
}
