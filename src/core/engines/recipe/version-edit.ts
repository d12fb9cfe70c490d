import { declaredAdmits, type VersionScheme } from '../../versions/versions.js';

/** The operator/prefix a version keeps when bumped (`^`, `~`, `>=`, `==`, `v` ...), and its bare version. */
export function splitVersion(value: string): { prefix: string; bare: string } {
  const match = /^(\s*(?:\^|~=|~|===|==|>=|<=|!=|>|<|=)?\s*)(.*)$/s.exec(value)!;
  return { prefix: match[1], bare: match[2].trim() };
}

/** How a manifest's declared value is read against a bump's `from`. */
export interface DeclaredVersion {
  scheme: VersionScheme;
  /** The whole requirement when the operator sits outside `current` (a requirements line). */
  declared?: string;
  /** A bare version is a caret requirement (Cargo). */
  bareIsCaret?: boolean;
  /** Where a declaration that does not match `from` is told, with the name to tell it by. */
  mismatches?: { label: string; out: string[] };
}

/**
 * The new text of a version value, or undefined when it must not change. With `from`, a value
 * changes when its bare version equals `from` or, given how the manifest reads, its declared
 * requirement admits `from` (Dependabot's `from` is the version a lockfile resolved: `^16.0.0`
 * admits 16.5.0 and becomes `^17.0.1`); otherwise the note names the declared value. A `to` that
 * carries its own operator is used as is.
 */
export function bumpedVersion(current: string, to: string, from: string | undefined, how?: DeclaredVersion): string | undefined {
  const { prefix, bare } = splitVersion(current);
  const strip = (v: string) => v.replace(/^v(?=\d)/, '');
  if (from !== undefined && strip(bare) !== strip(splitVersion(from).bare)) {
    const declared = how?.declared ?? current.trim();
    const admits = how !== undefined && declaredAdmits(how.scheme, declared, strip(splitVersion(from).bare), { bareIsCaret: how.bareIsCaret });
    if (!admits) {
      how?.mismatches?.out.push(`${how.mismatches.label} is declared as "${declared}", which neither is nor admits from ${from}; left alone`);
      return undefined;
    }
  }
  const target = splitVersion(to);
  if (target.prefix.trim()) return to;
  // Keep a leading `v` (Go) if the current value has one and `to` has none, and vice versa.
  let version = target.bare;
  if (/^v\d/.test(bare) && /^\d/.test(version)) version = `v${version}`;
  const next = prefix + version;
  return next === current ? undefined : next;
}
