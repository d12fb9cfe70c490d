import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAINTAINER, startAppHarness, type AppHarness } from '../helpers/app-harness.js';
import { answer, callTools } from '../helpers/scripted-model-server.js';

/**
 * Verification on AWS CodeBuild through the whole App: label → worker (the recipe's change, then
 * a build request, and the attempt suspends) → verifier (VerifierRole) starts the build on the
 * CodeBuild stand-in → the build's state change → the verifier's trusted result → the dispatcher
 * resumes the attempt → the failing test goes to the model's repair → a second build passes →
 * the publisher opens the draft PR, whose Verification section names where the checks ran.
 */

const ISSUE = 1;
const FILES = {
  'package.json': '{\n  "name": "calc",\n  "version": "1.0.0",\n  "private": true,\n  "scripts": { "test": "node --test" }\n}\n',
  'src/add.js': '// Adds two numbers.\nexports.add = (a, b) => a + b;\n',
  'test/add.test.js':
    "const test = require('node:test');\nconst assert = require('node:assert');\nconst { add } = require('../src/add.js');\n\ntest('add sums its arguments', () => assert.strictEqual(add(1, 2), 3));\n",
};
const POLICY = 'version: 1\nagent:\n  verify:\n    runner: codebuild\nlimits:\n  runsPerHour: 100\n';
const TASK = [
  'Rename add to sum in src/add.js',
  '',
  '```agent',
  'steps:',
  '  - recipe: replace',
  '    find: "exports.add ="',
  '    replace: "exports.sum ="',
  '    paths: ["src/add.js"]',
  '```',
  '',
].join('\n');
const FIXED = '// Adds two numbers.\nexports.sum = (a, b) => a + b;\nexports.add = exports.sum;\n';

describe('verification through AWS CodeBuild, label to draft PR', () => {
  let h: AppHarness;
  let requests: string[];

  beforeAll(async () => {
    h = await startAppHarness({
      files: FILES,
      policy: POLICY,
      issues: [{ number: ISSUE, title: 'Rename add to sum', body: TASK, user: MAINTAINER }],
      verify: 'codebuild',
      model: {
        script: (_body, index) =>
          index === 0 ? callTools({ name: 'file_write', arguments: { path: 'src/add.js', content: FIXED } }) : answer('Kept add as an alias of sum.'),
      },
    });
    expect((await h.deliver('issues', h.payloads.labeled(ISSUE))).statusCode).toBe(202);
    await h.drain();
    requests = h.model!.requests.map((r) => r.raw);
  }, 120_000);

  afterAll(async () => h?.stop());

  it('the build request went to the verifier, each build ended in a trusted result, and each result resumed the worker', () => {
    const fns = h.dispatched.map((d) => `${d.fn} ${d.key.replace(/^runs\/acme\/orders\/[^/]+\//, '')}`);
    const requestsToVerifier = h.dispatched.filter((d) => d.fn === 'verifier' && d.key.endsWith('/build-request.json'));
    const stateChanges = h.dispatched.filter((d) => d.fn === 'verifier' && d.key.startsWith('arn:aws:codebuild:'));
    expect(requestsToVerifier, fns.join('\n')).toHaveLength(2);
    expect(requestsToVerifier.map((d) => d.verifier)).toEqual([[{ started: expect.any(String) }], [{ started: expect.any(String) }]]);
    expect(stateChanges.map((d) => d.verifier)).toEqual([[{ finished: expect.any(String) }], [{ finished: expect.any(String) }]]);
    const resumes = h.dispatched.filter((d) => d.fn === 'worker' && /\/verify\/[0-9a-f]{64}\/result\.json$/.test(d.key));
    expect(resumes).toHaveLength(2);
    expect(h.dispatched.filter((d) => d.error !== undefined)).toEqual([]);
    expect(h.codebuild!.violations).toEqual([]);
    expect(h.codebuild!.starts).toHaveLength(2);
  });

  it('the failing test reached the repair, which fixed it; the second build passed', () => {
    expect(h.model!.problems()).toEqual([]);
    expect(requests[0]).toContain('npm run test');
    expect(requests[0]).toContain('add sums its arguments');
  });

  it('the draft PR says where the checks ran and that they passed', async () => {
    const pulls = [...h.standin.repo(h.fullName).pulls.values()];
    expect(pulls).toHaveLength(1);
    expect(pulls[0].draft).toBe(true);
    expect(pulls[0].body).toContain('**Run by draftsman** on the change (AWS CodeBuild):');
    expect(pulls[0].body).toMatch(/\| `npm run test` \| `\.` \| ✅ passed \| 0 \|/);
    expect(pulls[0].body).toContain('# pass 1');
  });

  it('the worker wrote one metric line per attempt started and ended, the end with the model calls it made', () => {
    const metrics = h.logs.lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'metric');
    expect(metrics.filter((m) => m.attemptsStarted === 1)).toHaveLength(1);
    const ended = metrics.filter((m) => m.attemptsEnded === 1);
    expect(ended).toHaveLength(1);
    expect(ended[0]).toMatchObject({ fn: 'worker', status: 'COMPLETED', modelCalls: h.model!.requests.length });
    expect(ended[0].modelTokensIn).toBeGreaterThan(0);
  });

  it('no secret leaked into the bucket, the logs, GitHub or the model', async () => {
    expect(await h.leaks()).toEqual([]);
  });
});
