/**
 * One problem found in a human-written YAML document (the policy file or a task block): where it
 * is, what kind it is, and a message a maintainer can act on. Lines and columns are 1-based and
 * relative to the document the text came from (the file, the issue body, the comment).
 */
export interface DocumentProblem {
  file: string;
  line: number;
  column: number;
  /** Path inside the document, e.g. `agent.forbiddenPaths[2]`; empty for the whole document. */
  path: string;
  /** DEPRECATED is a warning: the document is valid, and a key in it has a replacement. */
  type: 'YAML_SYNTAX' | 'SCHEMA' | 'DEPRECATED';
  message: string;
}

/** `file:line:col: path: message` lines, in document order, for comments and the CLI. */
export function formatProblems(problems: readonly DocumentProblem[]): string {
  return sortProblems(problems)
    .map((p) => `${p.file}:${p.line}:${p.column}: ${p.path ? `${p.path}: ` : ''}${p.message}`)
    .join('\n');
}

/** Document order: by line, then column; stable otherwise. */
export function sortProblems(problems: readonly DocumentProblem[]): DocumentProblem[] {
  return [...problems].sort((a, b) => a.line - b.line || a.column - b.column);
}

/** `a.b[2].c` from a zod/YAML path. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else out += out === '' ? String(segment) : `.${String(segment)}`;
  }
  return out;
}
