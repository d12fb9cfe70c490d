import { parseArgs } from 'node:util';
import { DEFAULT_SERVE_DIR } from './serve-command.js';
import { loadServeEnv } from './serve-settings.js';
import { UsageError, type CliIo } from '../cli/cli-io.js';
import { bucketStore } from '../cli/replay-command.js';
import { checkApp, checkBucket, checkModel, checkPolicy, checkSettings, checkStore, type DoctorCheck } from './doctor-checks.js';

const OPTIONS = {
  dir: { type: 'string' },
  'env-file': { type: 'string' },
  policy: { type: 'string' },
  bucket: { type: 'string' },
  endpoint: { type: 'string' },
  region: { type: 'string' },
  json: { type: 'boolean', default: false },
} as const;

/**
 * `draftsman doctor [--env-file FILE] [--dir DIR] [--policy FILE] [--bucket NAME [--endpoint URL]
 * [--region R]] [--json]`: checks a `serve` setup the way serve and the App would use it (the
 * settings, the App's credentials, webhook, permissions and events, the model endpoint, the
 * store, a deployment's bucket, a policy) and prints each check ✓ or ✗
 * with the fix. Exit 0 when every check passed, 1 otherwise.
 */
export async function doctorCommand(argv: string[], io: CliIo): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: false, strict: true }));
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const source = loadServeEnv(io.env, io.cwd, values['env-file']);
  const checks: DoctorCheck[] = [];
  const { check, settings } = checkSettings(source, io.cwd);
  checks.push(check);
  if (settings) {
    checks.push(...(await checkApp(settings, io.clock)));
    checks.push(await checkModel(settings));
  }
  checks.push(await checkStore(values.dir ?? DEFAULT_SERVE_DIR, io.cwd));
  if (values.bucket) checks.push(await checkBucket(bucketStore(values.bucket, io, values), values.bucket));
  const policy = checkPolicy(values.policy, io.cwd);
  if (policy) checks.push(policy);

  const failed = checks.filter((c) => !c.ok).length;
  if (values.json) io.stdout(`${JSON.stringify({ ok: failed === 0, checks })}\n`);
  else {
    for (const c of checks) io.stdout(c.ok ? `✓ ${c.name}: ${c.found}\n` : `✗ ${c.name}: ${c.found}\n  fix: ${c.fix}\n`);
    if (!settings) io.stdout('  (the App, webhook, permissions and model checks need the settings first)\n');
    io.stdout(failed === 0 ? `all ${checks.length} checks passed\n` : `${failed} of ${checks.length} checks failed\n`);
  }
  return failed === 0 ? 0 : 1;
}
