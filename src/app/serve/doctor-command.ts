import { parseArgs } from 'node:util';
import { DEFAULT_SERVE_DIR } from './serve-command.js';
import { loadServeEnv, serveModelSettings } from './serve-settings.js';
import { UsageError, type CliIo } from '../cli/cli-io.js';
import { bucketStore, OperatorAwsEnv } from '../cli/replay-command.js';
import { checkDeployment } from './doctor-deployment.js';
import { checkApp, checkBucket, checkModel, checkPolicy, checkServeWebhook, checkSettings, checkStore, serveApp, type DoctorCheck } from './doctor-checks.js';

const OPTIONS = {
  dir: { type: 'string' },
  'env-file': { type: 'string' },
  policy: { type: 'string' },
  bucket: { type: 'string' },
  stage: { type: 'string' },
  service: { type: 'string', default: 'draftsman' },
  'webhook-url': { type: 'string' },
  endpoint: { type: 'string' },
  region: { type: 'string' },
  json: { type: 'boolean', default: false },
} as const;

/**
 * `draftsman doctor [--env-file FILE] [--dir DIR] [--policy FILE] [--bucket NAME [--endpoint URL]
 * [--region R]] [--json]`: checks a `serve` setup the way serve and the App would use it (the
 * settings, the App's credentials, webhook, permissions and events, the model endpoint, the
 * store, a deployment's bucket, a policy) and prints each check ✓ or ✗
 * with the fix. `--stage NAME [--service NAME] [--webhook-url URL]` checks a deployment instead,
 * with the operator's AWS credentials (doctor-deployment.ts). Exit 0 when every check passed, 1
 * otherwise.
 */
export async function doctorCommand(argv: string[], io: CliIo): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: false, strict: true }));
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const checks: DoctorCheck[] = [];
  let note: string | undefined;
  let bucket = values.bucket;
  if (values.stage !== undefined) {
    if (values['env-file'] !== undefined || values.dir !== undefined)
      throw new UsageError('--stage checks a deployment: --env-file and --dir are for a serve setup');
    const env = OperatorAwsEnv.safeParse(io.env);
    if (!env.success) throw new UsageError(`invalid environment: ${env.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    const target = { service: values.service, stage: values.stage, region: values.region, webhookUrl: values['webhook-url'] };
    const deployment = await checkDeployment(target, env.data, io.clock);
    checks.push(...deployment.checks);
    bucket ??= deployment.bucket;
    if (checks.length === 1 && !checks[0]!.ok) note = "  (the other checks need the functions' configuration first)\n";
  } else {
    const source = loadServeEnv(io.env, io.cwd, values['env-file']);
    const { check, settings } = checkSettings(source, io.cwd);
    checks.push(check);
    if (settings) {
      checks.push(...(await checkApp(serveApp(settings), io.clock, (url) => checkServeWebhook(settings, url))));
      checks.push(await checkModel(serveModelSettings(settings)));
    } else note = '  (the App, webhook, permissions and model checks need the settings first)\n';
    checks.push(await checkStore(values.dir ?? DEFAULT_SERVE_DIR, io.cwd));
  }
  if (bucket) checks.push(await checkBucket(bucketStore(bucket, io, values), bucket));
  const policy = checkPolicy(values.policy, io.cwd);
  if (policy) checks.push(policy);

  const failed = checks.filter((c) => !c.ok).length;
  if (values.json) io.stdout(`${JSON.stringify({ ok: failed === 0, checks })}\n`);
  else {
    for (const c of checks) io.stdout(c.ok ? `✓ ${c.name}: ${c.found}\n` : `✗ ${c.name}: ${c.found}\n  fix: ${c.fix}\n`);
    if (note) io.stdout(note);
    io.stdout(failed === 0 ? `all ${checks.length} checks passed\n` : `${failed} of ${checks.length} checks failed\n`);
  }
  return failed === 0 ? 0 : 1;
}
