import { SmeeClient } from 'smee-client';
import type { Logger } from '../../core/ports.js';

/** Where a new webhook proxy channel comes from: smee.io answers with a redirect to a fresh channel. */
export const DEFAULT_PROXY_NEW_URL = 'https://smee.io/new';

/** A new proxy channel's URL (what smee.io's `/new` redirects to). */
export async function createProxyChannel(newChannelUrl = DEFAULT_PROXY_NEW_URL): Promise<string> {
  return SmeeClient.createChannel({ newChannelUrl });
}

/** The cause of a connection failure in words: an EventSource error event carries a message and a code, not an Error. */
export function describeProxyError(error: unknown): string {
  if (error instanceof Error) return error.message;
  const fields = (error ?? {}) as { message?: unknown; code?: unknown };
  const message = typeof fields.message === 'string' && fields.message ? fields.message : 'the connection failed';
  return fields.code === undefined ? message : `${message} (${String(fields.code)})`;
}

export interface WebhookProxy {
  /** Whether the channel answered at start. */
  readonly connected: boolean;
  stop(): Promise<void>;
}

/**
 * Relays the proxy channel's deliveries to `target`. An unreachable channel is said once (a
 * warning with its cause), not at every reconnection attempt; when it answers again that is
 * said once too. `serve` keeps taking deliveries on its own port meanwhile.
 */
export async function startWebhookProxy(source: string, target: string, logger: Logger): Promise<WebhookProxy> {
  let down = false;
  const unreachable = (error: unknown) => {
    if (down) return;
    down = true;
    logger.warn(`the webhook proxy ${source} cannot be reached: ${describeProxyError(error)}; serve keeps trying and takes deliveries on ${target} meanwhile`, {
      proxy: source,
    });
  };
  const client = new SmeeClient({
    source,
    target,
    logger: {
      info: (...args: unknown[]) => {
        const text = args.map(String).join(' ');
        if (text.startsWith('Connected to')) down = false;
        logger.info(text);
      },
      // Connection errors repeat every few seconds while the channel is away: `unreachable` says it once.
      error: (...args: unknown[]) => {
        const [first, second] = args;
        if (typeof first === 'string' && (first === 'Connection closed' || first === 'Error in connection')) return unreachable(second);
        logger.error('the webhook proxy could not forward a delivery', { error: describeProxyError(first) });
      },
    },
  });
  let connected = true;
  try {
    await client.start();
  } catch (error) {
    connected = false;
    unreachable(error);
  }
  return {
    connected,
    stop: () => client.stop(),
  };
}
