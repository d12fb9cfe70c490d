export * from './start-github-standin.js';
export type * from './repo-state.js';
export { objectSha, encodeTree, encodeCommit } from './git-objects.js';
