import type { Clock, IssuedToken, TokenBroker, TokenRole } from '../../core/ports.js';

/** A token is reused until this long before it expires (installation tokens live an hour). */
const REUSE_MARGIN_MS = 10 * 60_000;

/**
 * A TokenBroker that reuses a token of the same role for the same installation and repository
 * while it has more than REUSE_MARGIN_MS to live: a warm publisher shows a worker's progress many
 * times an attempt, and asks the token function once.
 */
export function cachedTokens(inner: TokenBroker, clock: Clock): TokenBroker {
  const cache = new Map<string, IssuedToken>();
  return {
    async token(request: { installationId: number; repositoryId: number; role: TokenRole }): Promise<IssuedToken> {
      const key = `${request.role}:${request.installationId}:${request.repositoryId}`;
      const held = cache.get(key);
      if (held && Date.parse(held.expiresAt) - clock.now() > REUSE_MARGIN_MS) return held;
      const issued = await inner.token(request);
      cache.set(key, issued);
      return issued;
    },
  };
}
