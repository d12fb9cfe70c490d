import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { verify } from '@octokit/webhooks-methods';
import { writeArtifact } from '../../core/artifacts/artifact-io.js';
import { ArtifactError } from '../../core/artifacts/artifact-error.js';
import { deliveryKey } from '../../core/artifacts/keys.js';
import type { ArtifactStore, Clock, Logger } from '../../core/ports.js';
import { withLogScope } from '../logger.js';
import { screenDelivery } from './event-filter.js';
import { StoredDelivery } from './stored-delivery.js';

/** GitHub caps webhook payloads at 25 MB; anything larger is not from GitHub. */
export const MAX_WEBHOOK_BYTES = 25 * 1024 * 1024;

export interface ReceiveDeps {
  /** Where the verified delivery is left for the intake (`deliveries/<id>.json`). */
  store: ArtifactStore;
  clock: Clock;
  logger: Logger;
  secret: string;
  /** `<slug>[bot]`: the App's own comments are ignored before anything is stored. */
  botLogin: string;
}

/**
 * API Gateway HTTP API (payload v2) -> signature verification -> screening -> one object -> 202.
 * No GitHub call happens before the answer: whether a run starts (policy, permission, limits,
 * lock, reply) is the intake's work, triggered by the object written here. Lower-cased headers,
 * base64 bodies decoded; a bad signature is 401 and nothing else happens.
 */
export async function receiveWebhook(deps: ReceiveDeps, event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> {
  const { logger } = deps;
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
  const valid = await verify(deps.secret, payload, signature).catch(() => false);
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
  const body = parsed as Record<string, unknown>;
  return withLogScope(deliveryFields(id, body), async () => {
    const screened = screenDelivery(name, body, deps.botLogin);
    // A payload that fails the zod subset is the sender's fault, not ours: 400, not a retried 500.
    if (screened.verdict === 'invalid') {
      logger.warn('webhook payload rejected', { delivery: id, event: screened.kind, error: describe(screened.error) });
      return respond(400, 'payload does not match the event schema');
    }
    if (screened.verdict === 'ignore') {
      logger.info('webhook delivery ignored', { delivery: id, event: screened.kind, why: screened.why });
      return respond(202, 'accepted');
    }
    let key: string;
    try {
      key = deliveryKey(id);
    } catch (error) {
      if (error instanceof ArtifactError) return respond(400, 'invalid delivery id');
      throw error;
    }
    try {
      // A redelivery overwrites the object and runs the intake again; trigger keys make that harmless.
      await writeArtifact(deps.store, key, StoredDelivery, { schemaVersion: 1, id, name, receivedAt: new Date(deps.clock.now()).toISOString(), payload: body });
    } catch (error) {
      logger.error('webhook delivery not stored', { delivery: id, event: screened.kind, error: describe(error) });
      return respond(500, 'internal error');
    }
    logger.info('webhook delivery accepted', { delivery: id, event: screened.kind });
    return respond(202, 'accepted');
  });
}

/** What every line about a signed delivery carries: its id, repository and installation when the payload names them. */
export function deliveryFields(delivery: string, payload: object): Record<string, unknown> {
  const p = payload as { repository?: { full_name?: unknown }; installation?: { id?: unknown } };
  return {
    delivery,
    repository: typeof p.repository?.full_name === 'string' ? p.repository.full_name : undefined,
    installationId: typeof p.installation?.id === 'number' ? p.installation.id : undefined,
  };
}

export function describe(error: unknown): string {
  if (error instanceof Error) {
    const inner = (error as Error & { errors?: unknown[] }).errors;
    return inner ? `${error.message}: ${inner.map((e) => (e instanceof Error ? e.message : String(e))).join('; ')}` : error.message;
  }
  return String(error);
}

function respond(statusCode: number, message: string): APIGatewayProxyStructuredResultV2 {
  return { statusCode, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message }) };
}
