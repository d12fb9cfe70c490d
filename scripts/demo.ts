// `npm run demo`: a generated Maven multi-module service, a task with two recipe steps, the whole
// pipeline through the CLI, then the draft PR body. No AWS, no GitHub, no network.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { runCli } from '../src/app/cli/run-cli.js';
import { DEMO_POLICY, MIGRATION_TASK as DEMO_TASK } from '../test/fixtures/migration-task.js';
import { mavenMultiModuleRepo } from '../test/fixtures/realistic-repos.js';

function git(cwd: string, args: string[]): void {
  execFileSync('git', args, {
    cwd,
    stdio: 'ignore',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'Demo Maintainer',
      GIT_AUTHOR_EMAIL: 'maintainer@example.com',
      GIT_COMMITTER_NAME: 'Demo Maintainer',
      GIT_COMMITTER_EMAIL: 'maintainer@example.com',
      GIT_AUTHOR_DATE: '2026-01-15T10:00:00Z',
      GIT_COMMITTER_DATE: '2026-01-15T10:00:00Z',
    },
  });
}

const root = mkdtempSync(join(tmpdir(), 'draftsman-demo-'));
const repo = join(root, 'order-service');
const files = { ...mavenMultiModuleRepo(), '.agent-policy.yaml': DEMO_POLICY };
for (const [path, content] of Object.entries(files)) {
  mkdirSync(dirname(join(repo, path)), { recursive: true });
  writeFileSync(join(repo, path), content);
}
git(repo, ['init', '-q', '-b', 'main']);
git(repo, ['add', '-A']);
git(repo, ['commit', '-q', '-m', 'Order service']);
const taskFile = join(root, 'task.md');
writeFileSync(taskFile, DEMO_TASK);
const out = join(root, 'state');

process.stderr.write(`draftsman demo: generated ${Object.keys(files).length} files in ${repo}\n`);
process.stderr.write(`draftsman demo: task:\n${DEMO_TASK.replace(/^/gm, '    ')}\n`);
const code = await runCli(['run', repo, '--task-file', taskFile, '--out', out, '--publish'], {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
  cwd: process.cwd(),
  clock: { now: () => Date.now() },
  isTty: Boolean(process.stderr.isTTY),
});
// The branch the run published (agent/local/r<runId>): the hint names it, so it can be pasted as is.
const branches = execFileSync('git', ['for-each-ref', '--format=%(refname:short)', 'refs/heads/agent/local/'], { cwd: repo, encoding: 'utf8' })
  .trim()
  .split('\n');
process.stderr.write(`\ndraftsman demo: artifacts under ${out}\n`);
for (const branch of branches.filter(Boolean)) process.stderr.write(`draftsman demo: inspect the branch with: git -C ${repo} log --stat main..${branch}\n`);
process.exitCode = code;
