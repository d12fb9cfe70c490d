/**
 * The conventional commit types a draft's commit may carry. Declared on a low floor so that
 * recipes can name theirs; the commit message contract (core/git) checks against the same list.
 */
export const COMMIT_TYPES = ['feat', 'fix', 'chore', 'refactor', 'docs', 'test', 'build', 'ci', 'perf', 'style', 'revert'] as const;
export type CommitType = (typeof COMMIT_TYPES)[number];
