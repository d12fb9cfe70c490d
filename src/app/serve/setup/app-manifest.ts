import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

/** GitHub's App manifest, as `app.yml` holds it (name, url, hook_attributes, default_events, default_permissions, ...). */
export type AppManifest = Record<string, unknown> & { name?: string; hook_attributes?: Record<string, unknown> };

/**
 * `app.yml` of the working directory when it has one, else the one this package ships (the
 * bundle's and the source's folder, walked up to the package root).
 */
export function findAppManifest(cwd: string, from = dirname(fileURLToPath(import.meta.url))): string | undefined {
  const local = resolve(cwd, 'app.yml');
  if (existsSync(local)) return local;
  const root = packageRoot(from);
  return root ? join(root, 'app.yml') : undefined;
}

/** This package's root (the folder with `app.yml` and `package.json`), from the bundle's or the source's folder. */
export function packageRoot(from = dirname(fileURLToPath(import.meta.url))): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'app.yml')) && existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

/**
 * The manifest GitHub's "register a GitHub App from a manifest" form takes: `app.yml` with the
 * webhook pointed at the proxy channel and the redirect back to this setup page.
 */
export function buildManifest(appYml: string, options: { webhookUrl: string; redirectUrl: string; name?: string }): AppManifest {
  const manifest = parse(readFileSync(appYml, 'utf8')) as AppManifest;
  return {
    ...manifest,
    ...(options.name ? { name: options.name } : {}),
    hook_attributes: { ...manifest.hook_attributes, url: options.webhookUrl, active: true },
    redirect_url: options.redirectUrl,
  };
}

/** Where the manifest form posts: the account's or an organisation's "new GitHub App" page. */
export function newAppUrl(githubUrl: string, organization?: string): string {
  const root = githubUrl.replace(/\/+$/, '');
  return organization ? `${root}/organizations/${encodeURIComponent(organization)}/settings/apps/new` : `${root}/settings/apps/new`;
}
