import { z } from 'zod';

/**
 * A verified delivery as the webhook leaves it for the intake (`deliveries/<id>.json`): the
 * event name and id from the signed request's headers and its parsed body. Only the webhook
 * role may write this prefix, so the intake trusts it without the webhook secret.
 */
export const StoredDelivery = z.object({
  schemaVersion: z.literal(1),
  id: z.string().min(1),
  name: z.string().min(1),
  /** When the webhook accepted it (ISO 8601); the intake logs how long it waited. */
  receivedAt: z.string(),
  payload: z.record(z.string(), z.unknown()),
});
export type StoredDelivery = z.infer<typeof StoredDelivery>;
