import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { verify } from '@octokit/webhooks-methods';
import type { Probot } from 'probot';
import { ZodError } from 'zod';
import type { Logger } from '../../core/ports.js';
import { withLogScope } from '../logger.js';

/** GitHub caps webhook payloads at 25 MB; anything larger is not from GitHub. */
export const MAX_WEBHOOK_BYTES = 25 * 1024 * 1024;

/**
 * API Gateway HTTP API (payload v2) -> signature verification -> the app. About twenty lines on
 * purpose (PLATFORM-NOTES): lower-cased headers, base64 bodies decoded, a bad signature is 401
 * and nothing else happens.
 */
export async function receiveWebhook(probot: Probot, secret: string, event: APIGatewayProxyEventV2, logger: Logger): Promise<APIGatewayProxyStructuredResultV2> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(event.headers ?? {})) if (value !== undefined) headers[name.toLowerCase()] = value;
  const id = headers['x-github-delivery'];
  const name = headers['x-github-event'];
  const signature = headers['x-hub-signature-256'];
  if (!id || !name || !signature) return respond(400, 'missing GitHub webhook headers');
  const contentType = (headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (contentType !== 'application/json') return respond(415, 'content type must be application/json');
  const raw = event.body ?? '';
  const bytes = event.isBase64Encoded ? Buffer.from(raw, 'base64') : Buffer.from(raw, 'utf8');
  if (bytes.byteLength > MAX_WEBHOOK_BYTES) return respond(413, 'payload too large');
  const payload = bytes.toString('utf8');
  const valid = await verify(secret, payload, signature).catch(() => false);
  if (!valid) {
    logger.warn('webhook signature rejected', { delivery: id, event: name });
    return respond(401, 'signature does not match');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(payload);
  } catch {
    return respond(400, 'payload is not JSON');
  }
  // Every GitHub event is an object; anything else would only make the handlers throw.
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return respond(400, 'payload is not a JSON object');
  try {
    await withLogScope(deliveryFields(id, parsed), () => probot.receive({ id, name: name as never, payload: parsed as never }));
  } catch (error) {
    // A payload that fails the zod subset is the sender's fault, not ours: 400, not a retried 500.
    if (isSchemaError(error)) {
      logger.warn('webhook payload rejected', { delivery: id, event: name, error: describe(error) });
      return respond(400, 'payload does not match the event schema');
    }
    logger.error('webhook handling failed', { delivery: id, event: name, error: describe(error) });
    return respond(500, 'internal error');
  }
  return respond(202, 'accepted');
}

/** What every line about a signed delivery carries: its id, repository and installation when the payload names them. */
function deliveryFields(delivery: string, payload: object): Record<string, unknown> {
  const p = payload as { repository?: { full_name?: unknown }; installation?: { id?: unknown } };
  return {
    delivery,
    repository: typeof p.repository?.full_name === 'string' ? p.repository.full_name : undefined,
    installationId: typeof p.installation?.id === 'number' ? p.installation.id : undefined,
  };
}

/** A ZodError, alone or as every error Probot aggregated from the handlers. */
function isSchemaError(error: unknown): boolean {
  const inner = (error as { errors?: unknown[] } | undefined)?.errors;
  const all = Array.isArray(inner) && inner.length > 0 ? inner : [error];
  return all.every((e) => e instanceof ZodError);
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const inner = (error as Error & { errors?: unknown[] }).errors;
    return inner ? `${error.message}: ${inner.map((e) => (e instanceof Error ? e.message : String(e))).join('; ')}` : error.message;
  }
  return String(error);
}

function respond(statusCode: number, message: string): APIGatewayProxyStructuredResultV2 {
  return { statusCode, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message }) };
}
