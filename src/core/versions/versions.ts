import * as pep440 from '@renovatebot/pep440';
import semver from 'semver';
import { compareMavenVersions, mavenNumbers } from './maven-version.js';

/**
 * Versions compared by each ecosystem's own rules: semver for npm and Cargo (and Go, whose
 * versions are semver with a `v`), Maven's order for Maven and Gradle, PEP 440 for Python. See
 * docs/architecture.md, "Versions".
 */
export type VersionScheme = 'semver' | 'go' | 'maven' | 'pep440';

/** How a bump moves a version, in Renovate's words; `downgrade` when the new version orders before the old. */
export const UPDATE_TYPES = ['major', 'minor', 'patch', 'other', 'downgrade', 'same'] as const;
export type UpdateType = (typeof UPDATE_TYPES)[number];

/** One dependency version a bump moved, with the kind of update the ecosystem's version order gives it. */
export interface DependencyUpdate {
  package: string;
  from: string;
  to: string;
  updateType: UpdateType;
}

/** Longer text is not a version a manifest declares: it is not parsed (a bound on cost). */
const MAX_VERSION_TEXT = 256;

function bareSemver(version: string, scheme: 'semver' | 'go'): semver.SemVer | undefined {
  if (version.length > MAX_VERSION_TEXT) return undefined;
  let text = version.trim();
  if (scheme === 'go') text = text.replace(/\+incompatible$/, '');
  return semver.parse(text, { loose: true }) ?? semver.coerce(text, { includePrerelease: true }) ?? undefined;
}

/** -1, 0 or 1 as the ecosystem orders `a` and `b`; undefined when either is not a version it can read. */
export function compareVersions(scheme: VersionScheme, a: string, b: string): number | undefined {
  if (a.length > MAX_VERSION_TEXT || b.length > MAX_VERSION_TEXT) return undefined;
  if (scheme === 'maven') return /^\s*\d/.test(a) && /^\s*\d/.test(b) ? compareMavenVersions(a.trim(), b.trim()) : undefined;
  if (scheme === 'pep440') {
    if (!pep440.valid(a.trim()) || !pep440.valid(b.trim())) return undefined;
    return Math.sign(pep440.compare(a.trim(), b.trim()));
  }
  const x = bareSemver(a, scheme);
  const y = bareSemver(b, scheme);
  return x && y ? semver.compare(x, y) : undefined;
}

function numbers(scheme: VersionScheme, version: string): number[] | undefined {
  if (scheme === 'maven') {
    const n = mavenNumbers(version);
    return n.length > 0 ? n : undefined;
  }
  if (scheme === 'pep440') {
    const parsed = pep440.valid(version.trim()) ? pep440.explain(version.trim()) : null;
    return parsed ? parsed.release : undefined;
  }
  const v = bareSemver(version, scheme);
  return v ? [v.major, v.minor, v.patch] : undefined;
}

/**
 * The kind of update from `from` to `to`: a downgrade when `to` orders first, else the first of
 * major, minor or patch that differs (`other` when only a qualifier or a fourth number does).
 * A 0.x version's minor counts as major, as semver and Renovate read it.
 */
export function updateType(scheme: VersionScheme, from: string, to: string): UpdateType | undefined {
  const order = compareVersions(scheme, from, to);
  if (order === undefined) return undefined;
  if (order > 0) return 'downgrade';
  if (order === 0) return 'same';
  const a = numbers(scheme, from);
  const b = numbers(scheme, to);
  if (!a || !b) return 'other';
  const at = (n: number[], i: number) => n[i] ?? 0;
  if (at(a, 0) !== at(b, 0)) return 'major';
  if (at(a, 0) === 0 && at(a, 1) !== at(b, 1) && scheme !== 'maven') return 'major';
  if (at(a, 1) !== at(b, 1)) return 'minor';
  if (at(a, 2) !== at(b, 2)) return 'patch';
  return 'other';
}

/**
 * Whether a declared requirement admits `version`, as the ecosystem reads the requirement: npm
 * ranges (`^16.0.0`), Cargo's bare requirement (`1.2` is `^1.2`), PEP 440 specifiers
 * (`>=2.0,<3`, `~=1.4`). Maven and Go declare exact versions: only equality admits. This is how a
 * bump's `from` (the version a lockfile resolved, as Dependabot writes it) finds its declaration.
 */
export function declaredAdmits(scheme: VersionScheme, declared: string, version: string, options: { bareIsCaret?: boolean } = {}): boolean {
  if (declared.length > MAX_VERSION_TEXT || version.length > MAX_VERSION_TEXT) return false;
  const range = declared.trim();
  if (scheme === 'pep440') return pep440.valid(version.trim()) !== null && /[<>=!~]/.test(range) && pep440.satisfies(version.trim(), range);
  if (scheme === 'semver') {
    const v = semver.valid(version.trim(), { loose: true });
    if (!v) return false;
    const req = options.bareIsCaret && /^\d/.test(range) ? `^${range}` : range;
    return /[\^~<>=*xX|]/.test(req) && semver.validRange(req, { loose: true }) !== null && semver.satisfies(v, req, { loose: true });
  }
  return compareVersions(scheme, range, version) === 0;
}
