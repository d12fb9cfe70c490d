import type { GitHttpRequest, GitHttpResponse, HttpClient } from 'isomorphic-git';

/** Why a guarded transfer was stopped; checked by the caller after isomorphic-git throws. */
export interface TransferGuard {
  readonly bytes: number;
  readonly tripped?: 'BYTE_CAP' | 'TIMEOUT';
}

class TransferStopped extends Error {
  constructor(readonly kind: 'BYTE_CAP' | 'TIMEOUT') {
    super(kind === 'BYTE_CAP' ? 'transfer exceeded the byte cap' : 'transfer timed out');
    this.name = 'TransferStopped';
  }
}

/**
 * Wrap an isomorphic-git HTTP client so a transfer can be stopped: response bytes are counted
 * across every request, and the whole transfer has one deadline. isomorphic-git has no abort
 * hook of its own, so the wrapper throws from the body stream and records why, and the caller
 * maps that onto REPO_TOO_LARGE or CLONE_TIMEOUT.
 */
export function guardHttp(
  inner: HttpClient,
  options: { maxBytes?: number; timeoutMs?: number },
): { http: HttpClient; guard: TransferGuard; also: (other: HttpClient) => HttpClient } {
  const state: { bytes: number; tripped?: 'BYTE_CAP' | 'TIMEOUT'; deadline?: number } = { bytes: 0 };
  const remaining = (): number => {
    if (options.timeoutMs === undefined) return Number.POSITIVE_INFINITY;
    state.deadline ??= Date.now() + options.timeoutMs;
    return state.deadline - Date.now();
  };
  const trip = (kind: 'BYTE_CAP' | 'TIMEOUT'): never => {
    state.tripped ??= kind;
    throw new TransferStopped(kind);
  };
  const withDeadline = async <T>(promise: Promise<T>): Promise<T> => {
    const left = remaining();
    if (left <= 0) trip('TIMEOUT');
    if (!Number.isFinite(left)) return promise;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        state.tripped ??= 'TIMEOUT';
        reject(new TransferStopped('TIMEOUT'));
      }, left);
    });
    try {
      return await Promise.race([promise, timeout]);
    } finally {
      clearTimeout(timer);
    }
  };
  // Any client wrapped here shares the count and the deadline: one transfer, several clients.
  const wrap = (client: HttpClient): HttpClient => ({
    request: async (request: GitHttpRequest): Promise<GitHttpResponse> => {
      const response = await withDeadline(client.request(request));
      const body = response.body;
      if (!body) return response;
      const iterator = body[Symbol.asyncIterator]();
      const counted: AsyncIterableIterator<Uint8Array> = {
        [Symbol.asyncIterator]() {
          return this;
        },
        next: async () => {
          const item = await withDeadline(iterator.next());
          if (!item.done) {
            state.bytes += item.value.byteLength;
            if (options.maxBytes !== undefined && state.bytes > options.maxBytes) {
              await iterator.return?.();
              trip('BYTE_CAP');
            }
          }
          return item;
        },
        return: async () => (iterator.return ? iterator.return() : { done: true, value: undefined }),
      };
      return { ...response, body: counted };
    },
  });
  return {
    http: wrap(inner),
    also: wrap,
    guard: {
      get bytes() {
        return state.bytes;
      },
      get tripped() {
        return state.tripped;
      },
    },
  };
}
