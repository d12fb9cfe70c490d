import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { receiveWebhook, type ReceiveDeps } from './receive-webhook.js';

export type WebhookHandlerDeps = ReceiveDeps;

/**
 * The webhook's testable core: verify, screen, store the delivery, answer. It holds no token
 * broker and no GitHub client on purpose: everything that needs GitHub runs in the intake
 * (create-intake-handler.ts), after the answer.
 */
export function createWebhookHandler(deps: WebhookHandlerDeps): (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2> {
  return (event) => receiveWebhook(deps, event);
}
