/**
 * The package name Go tools assume for an import path (goimports' rule): the last element that
 * is not a major version (`github.com/x/y/v3` is `y`), without a `go-` prefix, cut at the first
 * character that cannot be in an identifier (`gopkg.in/yaml.v3` is `yaml`).
 */
export function goPackageName(path: string): string {
  const segments = path.split('/');
  let name = segments[segments.length - 1];
  if (/^v\d+$/.test(name) && segments.length > 1) name = segments[segments.length - 2];
  name = name.replace(/^go-/, '');
  return /^[\p{L}_][\p{L}\p{Nd}_]*/u.exec(name)?.[0] ?? name;
}
