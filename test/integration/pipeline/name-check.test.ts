import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAiChatProvider } from '../../../src/app/model/openai-chat-provider.js';
import { answer, callTools, startScriptedModelServer, type ScriptedModelServer } from '../../helpers/scripted-model-server.js';
import { cli, makeWorkingCopy } from '../cli/cli-harness.js';
import { removeRoot, tempRoot } from './pipeline-harness.js';

/**
 * A change that breaks a name is never reported as passing: the model moves a Go file from
 * `io/ioutil` to `io` but leaves `ioutil.ReadAll`. Verification's name check
 * fails, the run ends FAILED (exit 1) with the problem named, and no candidate exists; the same
 * task done right passes, the check shown as evidence with its counts.
 */
const FILE = 'internal/read/read.go';
const BEFORE =
  'package read\n\nimport (\n\t"io"\n\t"io/ioutil"\n)\n\n// All reads r to the end.\nfunc All(r io.Reader) ([]byte, error) {\n\treturn ioutil.ReadAll(r)\n}\n';
const BROKEN = BEFORE.replace('\t"io"\n\t"io/ioutil"\n', '\t"io"\n');
const RIGHT = BROKEN.replace('ioutil.ReadAll', 'io.ReadAll');
const TASK = 'Replace the deprecated io/ioutil package in internal/read/read.go with io.';

describe('verification checks the names a change leaves', () => {
  let root: string;
  const servers: ScriptedModelServer[] = [];

  beforeAll(() => {
    root = tempRoot('name-check');
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
    removeRoot(root);
  });

  const requests: string[] = [];
  const runWith = async (name: string, content: string, options: { policy?: string; repair?: string } = {}) => {
    const repo = join(root, name);
    makeWorkingCopy(repo, { 'go.mod': 'module example.com/x\n\ngo 1.22\n', [FILE]: BEFORE, '.agent-policy.yaml': options.policy ?? 'version: 1\n' });
    const server = await startScriptedModelServer({
      script: (body, index) => {
        requests.push(JSON.stringify(body));
        if (index === 0) return callTools({ name: 'file_write', arguments: { path: FILE, content } });
        // The first repair segment's first request: write the repair when the test gives one.
        if (index === 2 && options.repair) return callTools({ name: 'file_write', arguments: { path: FILE, content: options.repair } });
        return answer('Replaced ioutil with io.');
      },
    });
    servers.push(server);
    const model = new OpenAiChatProvider({ baseUrl: server.baseUrl, model: 'scripted-1', maxRetries: 0 });
    return cli(['run', repo, '--task', TASK, '--out', join(root, `state-${name}`), '--json'], { model });
  };

  it('fails the run, naming the unresolved qualifier, with no candidate', async () => {
    const result = await runWith('broken', BROKEN);
    expect(result.code).toBe(1);
    expect(result.json).toMatchObject({ status: 'FAILED', reason: 'VERIFICATION_FAILED' });
    const text = JSON.stringify(result.json);
    expect(text).toContain(`${FILE}:9 uses ioutil, which io/ioutil bound before`);
    expect(result.json!.artifacts?.['pr-candidate.json']).toBeUndefined();
  }, 60_000);

  it('passes the change done right, and the PR body shows the check with its counts, saying no build ran', async () => {
    const result = await runWith('right', RIGHT);
    expect(result.json).toMatchObject({ status: 'COMPLETED' });
    expect(JSON.stringify(result.json)).not.toContain('VERIFICATION_FAILED');
    const report = readFileSync(result.json!.artifacts['pr-body.md'], 'utf8');
    expect(report).toContain('names: 0 introduced unresolved, 0 unused imports (compared with the base; no build was run)');
  }, 60_000);

  it('a repair segment told what broke fixes it, and the run publishes', async () => {
    requests.length = 0;
    const result = await runWith('repaired', BROKEN, { repair: RIGHT });
    expect(result.json).toMatchObject({ status: 'COMPLETED' });
    expect(requests.some((r) => r.includes(`${FILE}:9 uses ioutil, which io/ioutil bound before`))).toBe(true);
    const candidate = JSON.parse(readFileSync(result.json!.artifacts['pr-candidate.json'], 'utf8'));
    expect(candidate.title.startsWith('[partial]')).toBe(false);
  }, 60_000);

  it('an import the change left unused in Go is dropped as goimports would, without a model call', async () => {
    const unused = BEFORE.replace('ioutil.ReadAll', 'io.ReadAll');
    requests.length = 0;
    const result = await runWith('unused', unused);
    expect(result.json).toMatchObject({ status: 'COMPLETED' });
    expect(requests).toHaveLength(2);
    const report = readFileSync(result.json!.artifacts['pr-body.md'], 'utf8');
    expect(report).toContain('names: 0 introduced unresolved, 0 unused imports');
    // The import line went too: one line added (io.ReadAll), two removed (ioutil.ReadAll and the import).
    const candidate = JSON.parse(readFileSync(result.json!.artifacts['pr-candidate.json'], 'utf8'));
    expect(candidate.diffSummary).toMatchObject({ filesChanged: 1, insertions: 1, deletions: 2 });
  }, 60_000);

  it('with agent.publishPartial, the broken change publishes, its title and the top of its body saying what is broken', async () => {
    const result = await runWith('partial', BROKEN, { policy: 'version: 1\nagent:\n  publishPartial: true\n' });
    expect(result.json).toMatchObject({ status: 'COMPLETED' });
    const candidate = JSON.parse(readFileSync(result.json!.artifacts['pr-candidate.json'], 'utf8'));
    expect(candidate.title.startsWith('[partial] ')).toBe(true);
    const body: string = candidate.body;
    expect(body.indexOf('> Partial change, published because agent.publishPartial is set')).toBeGreaterThan(0);
    expect(body.indexOf('Partial change')).toBeLessThan(body.indexOf('<details>'));
    expect(body).toContain('uses ioutil, which io/ioutil bound before');
    expect(candidate.judge).toMatchObject({ verdict: 'NEEDS_REVIEW' });
  }, 60_000);
});
