import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parsePolicy } from '../../core/policy/parse-policy.js';
import { PolicyError } from '../../core/policy/policy-error.js';
import type { ArtifactStore, Clock } from '../../core/ports.js';
import { missingGrants, nothingMissing } from '../github/app-grants.js';
import { createGitHubApi } from '../github/github-api.js';
import { LocalArtifactStore } from '../local/local-artifact-store.js';
import { createModelProvider } from '../model/create-model-provider.js';
import { modelFailureOf } from '../model/model-failure.js';
import { ModelConfigError, type ModelSettings } from '../model/model-settings.js';
import { readServeSettings, type ServeEnvSource, type ServeSettings } from './serve-settings.js';
import { appJwt } from '../tokens/mint-installation-token.js';

/** One line of `draftsman doctor`: what was checked, what was found, and the fix when it failed. */
export type DoctorCheck = { name: string; ok: true; found: string } | { name: string; ok: false; found: string; fix: string };

export const pass = (name: string, found: string): DoctorCheck => ({ name, ok: true, found });
export const fail = (name: string, found: string, fix: string): DoctorCheck => ({ name, ok: false, found, fix });

/** The settings as `serve` reads them (serve-settings.ts): the same parser, the same sentences. */
export function checkSettings(source: ServeEnvSource, cwd: string): { check: DoctorCheck; settings?: ServeSettings } {
  try {
    const settings = readServeSettings(source.env, cwd, source);
    return { check: pass('settings', `APP_ID ${settings.APP_ID}, the webhook secret and the private key read from ${source.file}`), settings };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { check: fail('settings', message, `set what is named in ${source.file} (.env.example lists every variable)`) };
  }
}

/** The App as doctor reaches it: its id, key, API root and slug, from serve's settings or a deployment's. */
export interface DoctorApp {
  appId: number;
  privateKey: string;
  apiUrl: string;
  slug: string;
}

/** The App of serve's settings. */
export function serveApp(settings: ServeSettings): DoctorApp {
  return { appId: settings.APP_ID, privateKey: settings.privateKey, apiUrl: settings.apiUrl, slug: settings.GITHUB_APP_SLUG };
}

/**
 * What GitHub says of the App, asked with its JWT: the credentials, its permissions and events,
 * and its webhook URL, judged by `webhook` (serve's path or proxy, or a deployment's endpoint).
 */
export async function checkApp(settings: DoctorApp, clock: Clock, webhook: (url: string | undefined) => DoctorCheck): Promise<DoctorCheck[]> {
  let app: { slug?: string; permissions?: Record<string, string>; events?: string[] };
  let hook: { url?: string };
  try {
    const token = await appJwt({ appId: settings.appId, privateKey: settings.privateKey, clock });
    const api = createGitHubApi({ token, baseUrl: settings.apiUrl, now: clock.now, policy: { retries: 0 } });
    app = (await api.rest.apps.getAuthenticated()).data as typeof app;
    hook = (await api.rest.apps.getWebhookConfigForApp()).data;
  } catch (error) {
    const status = (error as { status?: unknown }).status;
    const found = `${settings.apiUrl} refused the App's credentials${typeof status === 'number' ? ` (HTTP ${status})` : ''}: ${error instanceof Error ? error.message : String(error)}`;
    return [fail('app credentials', found, "check APP_ID and the private key against the App's settings page (a new key can be generated there)")];
  }
  return [pass('app credentials', `the App ${app.slug ?? settings.slug} (id ${settings.appId}) at ${settings.apiUrl}`), webhook(hook.url), checkGrants(app)];
}

/** Where GitHub delivers: the proxy channel serve forwards from, or a URL whose path serve listens on. */
export function checkServeWebhook(settings: ServeSettings, url: string | undefined): DoctorCheck {
  const name = 'webhook';
  if (!url)
    return fail(
      name,
      'the App has no webhook URL',
      `set the App's webhook URL to ${settings.WEBHOOK_PROXY_URL ?? `https://<your host>${settings.WEBHOOK_PATH}`}`,
    );
  if (settings.WEBHOOK_PROXY_URL)
    return url === settings.WEBHOOK_PROXY_URL
      ? pass(name, `GitHub delivers to the proxy channel ${url}, which serve forwards to ${settings.WEBHOOK_PATH}`)
      : fail(
          name,
          `GitHub delivers to ${url}, not to WEBHOOK_PROXY_URL ${settings.WEBHOOK_PROXY_URL}`,
          "set the App's webhook URL to WEBHOOK_PROXY_URL, or WEBHOOK_PROXY_URL to the App's",
        );
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    return fail(name, `the App's webhook URL ${url} is not a URL`, `set it to https://<your host>${settings.WEBHOOK_PATH}`);
  }
  return path === settings.WEBHOOK_PATH
    ? pass(name, `GitHub delivers to ${url}, the path serve listens on`)
    : fail(
        name,
        `GitHub delivers to the path ${path}, serve listens on ${settings.WEBHOOK_PATH}`,
        `set WEBHOOK_PATH=${path}, or the App's webhook URL to end in ${settings.WEBHOOK_PATH}`,
      );
}

/** The App's permissions and events against app.yml's (app-grants.ts, the intake's list). */
function checkGrants(app: { permissions?: Record<string, string>; events?: string[] }): DoctorCheck {
  const missing = missingGrants({ permissions: app.permissions ?? {}, events: app.events ?? [] });
  if (nothingMissing(missing)) return pass('permissions', 'the App has every permission and event app.yml asks for');
  const parts = [...missing.permissions.map((p) => `${p.name}: ${p.wanted} (has ${p.granted ?? 'none'})`), ...missing.events.map((e) => `the ${e} event`)];
  return fail(
    'permissions',
    `the App lacks ${parts.join(', ')}`,
    "add them in the App's settings (Permissions & events); each installation's owner then accepts them",
  );
}

/**
 * The model as the worker (serve) or model-call (a deployment) would build it, and one short call
 * to its endpoint. `fixSettings` says where the settings are changed.
 */
export async function checkModel(settings: ModelSettings, fixSettings = 'set the MODEL_* variable it names (.env.example)'): Promise<DoctorCheck> {
  const name = 'model';
  let model;
  try {
    model = createModelProvider(settings, { maxRetries: 0, timeoutMs: 30_000 });
  } catch (error) {
    if (error instanceof ModelConfigError) return fail(name, error.message, fixSettings);
    throw error;
  }
  if (!model) return pass(name, 'no model configured: recipe and analysis tasks only (MODEL_PROVIDER or MODEL_BASE_URL adds one)');
  try {
    await model.complete({ messages: [{ role: 'user', content: 'Reply with OK.' }], tools: [], maxTokens: 16 });
    return pass(name, `${model.model} answered`);
  } catch (error) {
    const reason = (error as { reason?: unknown }).reason;
    const failure = modelFailureOf(`${typeof reason === 'string' ? `${reason}: ` : ''}${error instanceof Error ? error.message : String(error)}`);
    return fail(name, failure.cause, failure.advice);
  }
}

/** Where serve keeps runs and state: a probe object written and removed. */
export async function checkStore(dir: string, cwd: string): Promise<DoctorCheck> {
  const root = resolve(cwd, dir);
  try {
    const store = new LocalArtifactStore(root);
    await store.put('doctor/probe.json', new TextEncoder().encode('{}'));
    await store.delete('doctor/probe.json');
    return pass('store', `${root} is writable`);
  } catch (error) {
    return fail(
      'store',
      `${root} cannot be written: ${error instanceof Error ? error.message : String(error)}`,
      'make it writable, or give another directory with --dir',
    );
  }
}

/** The deployment's bucket, with the operator's AWS credentials: reachable and listable. */
export async function checkBucket(store: ArtifactStore, bucket: string): Promise<DoctorCheck> {
  try {
    const keys = await store.list('locks/');
    return pass('bucket', `${bucket} is reachable (${keys.length} issue lock${keys.length === 1 ? '' : 's'} held)`);
  } catch (error) {
    return fail(
      'bucket',
      `${bucket} cannot be listed: ${error instanceof Error ? error.message : String(error)}`,
      "check the name (the stack's ArtifactBucket output), the region (--region or AWS_REGION) and your AWS credentials",
    );
  }
}

/** A policy file (`--policy FILE`, else `.agent-policy.yaml` here when there is one), as the App parses it. */
export function checkPolicy(file: string | undefined, cwd: string): DoctorCheck | undefined {
  const name = file ?? '.agent-policy.yaml';
  const path = resolve(cwd, name);
  if (!file && !existsSync(path)) return undefined;
  let text: Buffer;
  try {
    text = readFileSync(path);
  } catch {
    return fail('policy', `${name} cannot be read`, 'give an existing file with --policy');
  }
  try {
    parsePolicy({ text, file: name });
    return pass('policy', `${name} is valid`);
  } catch (error) {
    if (!(error instanceof PolicyError)) throw error;
    return fail('policy', error.format().split('\n').slice(0, 3).join('; '), `fix it (\`draftsman policy check ${name}\` lists every problem)`);
  }
}
