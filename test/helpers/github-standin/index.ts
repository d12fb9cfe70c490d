/**
 * A stateful stand-in for the GitHub REST endpoints the App uses, on loopback.
 *
 *   const standin = await startGitHubStandin({ appId, privateKeyPem, repos: [{ owner, name, id, files }] });
 *   new Octokit({ auth: token, baseUrl: standin.url });       // tokens come from POST /app/installations/{id}/access_tokens
 *   standin.calls / standin.faults.inject(...) / standin.addCheckSuite(...) / standin.setIssue(...)
 *   startGitHttpServer({ root: standin.gitRoot, ... })        // same bare repositories over smart HTTP
 *   await standin.stop();
 */
export * from './start-github-standin.js';
export type * from './repo-state.js';
export { objectSha, encodeTree, encodeCommit } from './git-objects.js';
