import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGitHubStandin, type GitHubStandin, DEFAULT_INSTALLATION_PERMISSIONS } from '../../helpers/github-standin/index.js';
import { startS3Server, type S3TestServer } from '../../helpers/s3-server.js';
import { answer, startScriptedModelServer, type ScriptedModelServer } from '../../helpers/scripted-model-server.js';
import { fixedClock, testAppKey } from '../github/standin-fixture.js';
import { CLI_NOW, cli } from './cli-harness.js';

/**
 * `draftsman doctor` over a serve setup, against the GitHub stand-in and the scripted model
 * server: every check is seen failing on a broken setup, with its fix, and passing on a sound one.
 */
const keys = testAppKey();
const APP_ID = 31;
const MODEL_KEY = 'sk-doctor-model-key-0123456789';
/** The S3 stand-in's own key pair. */
const S3_CREDENTIALS = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' };

describe('draftsman doctor', () => {
  let broken: GitHubStandin;
  let sound: GitHubStandin;
  let model: ScriptedModelServer;
  let dir: string;
  let s3: S3TestServer;

  beforeAll(async () => {
    const common = { appId: APP_ID, privateKeyPem: keys.privateKeyPem, clock: fixedClock(CLI_NOW), repos: [] };
    const { actions: _actions, ...withoutActions } = DEFAULT_INSTALLATION_PERMISSIONS;
    broken = await startGitHubStandin({
      ...common,
      appPermissions: withoutActions,
      appEvents: ['issues', 'issue_comment', 'pull_request_review', 'pull_request_review_comment', 'check_suite', 'status', 'pull_request'],
      webhookUrl: 'https://hooks.example.test/github',
    });
    sound = await startGitHubStandin({ ...common, webhookUrl: 'https://hooks.example.test/api/github/webhooks' });
    model = await startScriptedModelServer({ script: () => answer('OK'), apiKey: MODEL_KEY });
    dir = mkdtempSync(join(tmpdir(), 'doctor-'));
    s3 = await startS3Server({ bucket: 'draftsman-doctor' });
  }, 60_000);

  afterAll(async () => {
    await broken?.stop();
    await sound?.stop();
    await model?.close();
    await s3?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const env = (github: GitHubStandin, overrides: Record<string, string> = {}) => ({
    APP_ID: String(APP_ID),
    WEBHOOK_SECRET: 'doctor-webhook-secret',
    PRIVATE_KEY: keys.privateKeyPem,
    GITHUB_API_URL: github.url,
    GITHUB_APP_SLUG: 'draftsman',
    MODEL_BASE_URL: model.baseUrl,
    MODEL_NAME: 'scripted',
    MODEL_API_KEY: MODEL_KEY,
    ...overrides,
  });

  it('a broken setup: the webhook path, the permissions and events, the model key, the store, the bucket and the policy each fail with their fix', async () => {
    const cwd = mkdtempSync(join(dir, 'broken-'));
    writeFileSync(join(cwd, '.agent-policy.yaml'), 'version: 1\nagent:\n  maxChangedFiles: lots\n');
    writeFileSync(join(cwd, 'not-a-dir'), 'a file');

    const out = await cli(['doctor', '--dir', 'not-a-dir/state', '--bucket', 'no-such-bucket', '--endpoint', s3.endpoint], {
      cwd,
      env: env(broken, { MODEL_API_KEY: 'sk-wrong-key-0123456789', ...S3_CREDENTIALS }),
    });

    expect(out.code).toBe(1);
    expect(out.stdout).toContain(`✓ settings: APP_ID ${APP_ID}`);
    expect(out.stdout).toContain('✓ app credentials: the App draftsman');
    expect(out.stdout).toContain('✗ webhook: GitHub delivers to the path /github, serve listens on /api/github/webhooks\n  fix: set WEBHOOK_PATH=/github');
    expect(out.stdout).toContain('✗ permissions: the App lacks actions: read (has none), the push event\n  fix: add them in the App');
    expect(out.stdout).toMatch(/✗ model: MODEL_AUTH_FAILED: model endpoint .* answered HTTP 401.*\n {2}fix: the provider refused the key: check MODEL_API_KEY/);
    expect(out.stdout).toMatch(/✗ store: .*not-a-dir\/state cannot be written.*\n {2}fix: make it writable, or give another directory with --dir/);
    expect(out.stdout).toMatch(/✗ policy: .agent-policy.yaml:3:\d+: .*\n {2}fix: fix it \(`draftsman policy check .agent-policy.yaml` lists every problem\)/);
    expect(out.stdout).toMatch(/✗ bucket: no-such-bucket cannot be listed: .*\n {2}fix: check the name \(the stack's ArtifactBucket output\)/);
    expect(out.stdout).toContain('6 of 8 checks failed');
    expect(out.stdout).not.toContain('sk-wrong-key-0123456789');
  });

  it('settings serve cannot start from, and credentials GitHub refuses, fail with their fix', async () => {
    const cwd = mkdtempSync(join(dir, 'settings-'));
    const { WEBHOOK_SECRET: _secret, ...noSecret } = env(sound);

    const missing = await cli(['doctor'], { cwd, env: noSecret });
    expect(missing.code).toBe(1);
    expect(missing.stdout).toContain('✗ settings: WEBHOOK_SECRET is missing: set it in .env\n  fix: set what is named in .env');

    const otherKey = await cli(['doctor'], { cwd, env: env(sound, { PRIVATE_KEY: keys.otherPrivateKeyPem }) });
    expect(otherKey.code).toBe(1);
    expect(otherKey.stdout).toMatch(/✗ app credentials: .* refused the App's credentials \(HTTP 401\).*\n {2}fix: check APP_ID and the private key/);
  });

  it('a sound setup: every check passes, and --json says so', async () => {
    const cwd = mkdtempSync(join(dir, 'sound-'));
    writeFileSync(join(cwd, '.agent-policy.yaml'), 'version: 1\n');

    const out = await cli(['doctor', '--json', '--bucket', s3.bucket, '--endpoint', s3.endpoint], { cwd, env: env(sound, S3_CREDENTIALS) });

    expect(out.code).toBe(0);
    expect(out.json).toMatchObject({ ok: true });
    expect(out.json!.checks.map((c: { name: string; ok: boolean }) => `${c.name}:${c.ok}`)).toEqual([
      'settings:true',
      'app credentials:true',
      'webhook:true',
      'permissions:true',
      'model:true',
      'store:true',
      'bucket:true',
      'policy:true',
    ]);
  });
});
