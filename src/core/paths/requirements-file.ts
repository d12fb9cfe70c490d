/**
 * A pip requirements file, by its path: `requirements*.txt`, `constraints*.txt` and pip-tools'
 * inputs (`*.in`, kept beside the compiled `*.txt`), or any `.txt`/`.in` inside a `requirements/`
 * directory. The repository map and the bump recipe both read manifests through this rule.
 */
export function isRequirementsFile(path: string): boolean {
  const name = path.slice(path.lastIndexOf('/') + 1);
  return /^(requirements|constraints).*\.(txt|in)$/.test(name) || (/\.(txt|in)$/.test(name) && /(^|\/)requirements\//.test(path));
}
