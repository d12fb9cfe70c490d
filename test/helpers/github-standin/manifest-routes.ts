import { iso, userJson } from './repo-json.js';
import type { RouteResult } from './route-context.js';
import type { StandinUser } from './repo-state.js';

/** A registration through GitHub's manifest flow that the stand-in will convert once (`POST /app-manifests/{code}/conversions`). */
export interface StandinManifestRegistration {
  /** The temporary code GitHub hands the redirect URL. */
  code: string;
  /** The App's owner (a user login). */
  owner: string;
  webhookSecret: string;
}

/**
 * The manifest conversion as GitHub answers it: no authentication, the code good once (GitHub's
 * lasts an hour), 201 with the App (`integration`) plus its client id and secret, webhook secret
 * and private key. The App is the stand-in's own, so the key it hands out mints its tokens.
 */
export function manifestConversion(
  code: string,
  pending: StandinManifestRegistration[],
  app: { id: number; slug: string; privateKeyPem: string; owner: StandinUser; baseUrl: string; now: number; permissions: Record<string, string> },
): RouteResult {
  const at = pending.findIndex((r) => r.code === code);
  if (at < 0)
    return { status: 404, body: { message: 'Not Found', documentation_url: 'https://docs.github.com/rest/apps/apps#create-a-github-app-from-a-manifest' } };
  const [registration] = pending.splice(at, 1);
  return {
    status: 201,
    body: {
      id: app.id,
      slug: app.slug,
      node_id: `A_${app.id}`,
      owner: userJson(app.owner),
      name: app.slug,
      description: null,
      external_url: `${app.baseUrl}/`,
      html_url: `${app.baseUrl}/apps/${app.slug}`,
      created_at: iso(app.now),
      updated_at: iso(app.now),
      permissions: app.permissions,
      events: ['issues', 'issue_comment', 'pull_request_review', 'check_suite', 'status', 'pull_request', 'push'],
      client_id: `Iv1.standin${app.id}`,
      client_secret: `standin-client-secret-${app.id}-${registration.code}`,
      webhook_secret: registration.webhookSecret,
      pem: app.privateKeyPem,
    },
  };
}
