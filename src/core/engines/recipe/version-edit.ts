/** The operator/prefix a version keeps when bumped (`^`, `~`, `>=`, `==`, `v` ...), and its bare version. */
export function splitVersion(value: string): { prefix: string; bare: string } {
  const match = /^(\s*(?:\^|~=|~|===|==|>=|<=|!=|>|<|=)?\s*)(.*)$/s.exec(value)!;
  return { prefix: match[1], bare: match[2].trim() };
}

/**
 * The new text of a version value, or undefined when it must not change: with `from`, only a
 * value whose bare version equals `from` changes. A `to` that carries its own operator is used as is.
 */
export function bumpedVersion(current: string, to: string, from: string | undefined): string | undefined {
  const { prefix, bare } = splitVersion(current);
  const strip = (v: string) => v.replace(/^v(?=\d)/, '');
  if (from !== undefined && strip(bare) !== strip(splitVersion(from).bare)) return undefined;
  const target = splitVersion(to);
  if (target.prefix.trim()) return to;
  // Keep a leading `v` (Go) if the current value has one and `to` has none, and vice versa.
  let version = target.bare;
  if (/^v\d/.test(bare) && /^\d/.test(version)) version = `v${version}`;
  const next = prefix + version;
  return next === current ? undefined : next;
}
