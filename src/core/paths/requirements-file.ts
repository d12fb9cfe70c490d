/**
 * A pip requirements file, by its path: `requirements*.txt`, `constraints*.txt`, a prefixed
 * `dev-requirements.txt`/`test_requirements.txt`, and pip-tools'
 * inputs (`*.in`, kept beside the compiled `*.txt`), or any `.txt`/`.in` inside a `requirements/`
 * directory. The repository map and the bump recipe both read manifests through this rule.
 */
export function isRequirementsFile(path: string): boolean {
  const name = path.slice(path.lastIndexOf('/') + 1);
  if (!/\.(txt|in)$/.test(name)) return false;
  if (/^(requirements|constraints)/.test(name) || /(^|\/)requirements\//.test(path)) return true;
  // `dev-requirements.txt`, `test_requirements.txt`, `docs.requirements.txt`: a word of the name.
  const words = name.replace(/\.(txt|in)$/, '').split(/[-_.]/);
  return words.includes('requirements') || words.includes('constraints');
}
