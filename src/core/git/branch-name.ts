import { GitBoundaryError } from './git-boundary-error.js';

/** Why a ref name fails `git check-ref-format`, or undefined when it passes. */
export function refFormatProblem(name: string): string | undefined {
  if (name.length === 0) return 'empty';
  if (name === '@') return 'is "@"';
  if (name.startsWith('/') || name.endsWith('/')) return 'begins or ends with "/"';
  if (name.includes('//')) return 'contains "//"';
  if (name.includes('..')) return 'contains ".."';
  if (name.includes('@{')) return 'contains "@{"';
  if (name.endsWith('.')) return 'ends with "."';
  if (/[\u0000-\u0020\u007f~^:?*[\\]/.test(name)) return 'contains a control character, space, or one of ~ ^ : ? * [ \\';
  for (const component of name.split('/')) {
    if (component.startsWith('.')) return 'a component begins with "."';
    if (component.endsWith('.lock')) return 'a component ends with ".lock"';
  }
  return undefined;
}

/** Agent branches: valid ref names under `agent/`, at most 200 characters (DESIGN §4). */
export function assertAgentBranchName(name: string): void {
  const problem = refFormatProblem(name) ?? (!name.startsWith('agent/') || name.length <= 'agent/'.length ? 'not under agent/' : name.length > 200 ? 'longer than 200 characters' : undefined);
  if (problem) throw new GitBoundaryError('INVALID_BRANCH_NAME', `invalid agent branch name (${problem})`, { branch: name, problem });
}
