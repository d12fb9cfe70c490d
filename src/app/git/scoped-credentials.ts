import type { GitHttpRequest, GitHttpResponse, HttpClient } from 'isomorphic-git';

const MAX_REDIRECTS = 10;

/** True for hosts that never leave the machine: 127.0.0.0/8, ::1, localhost. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** Plain http to anything but loopback: a credential sent there is readable on the way. */
export function isInsecureForCredentials(url: string): boolean {
  const parsed = new URL(url);
  return parsed.protocol !== 'https:' && !isLoopbackHost(parsed.hostname);
}

/**
 * Wrap an HTTP client so credentials only ever reach the repository's own origin (scheme,
 * host and port, as curl scopes them): redirects are followed here, not inside the client, and
 * a request to any other origin (a redirect, or a URL learned from a redirected discovery)
 * loses its Authorization header.
 */
export function scopeCredentials(inner: HttpClient, repositoryUrl: string): HttpClient {
  const origin = new URL(repositoryUrl).origin;
  return {
    request: async (request: GitHttpRequest): Promise<GitHttpResponse> => {
      const body = request.body ? await collect(request.body) : undefined;
      let url = request.url;
      let method = request.method ?? 'GET';
      let send = body;
      for (let redirects = 0; ; redirects++) {
        const headers = new URL(url).origin === origin ? { ...request.headers } : withoutCredentials(request.headers ?? {});
        const next = { ...request, url, method, headers, body: send ? [send] : undefined, fetchOptions: { followRedirects: false } } as GitHttpRequest;
        const response = await inner.request(next);
        const location = response.headers?.location;
        if (response.statusCode < 300 || response.statusCode >= 400 || !location) return response;
        await drain(response);
        if (redirects >= MAX_REDIRECTS) throw new Error('too many redirects');
        url = new URL(location, url).toString();
        if (response.statusCode !== 307 && response.statusCode !== 308) {
          method = method === 'HEAD' ? 'HEAD' : 'GET';
          send = undefined;
        }
      }
    },
  };
}

function withoutCredentials(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !['authorization', 'cookie', 'proxy-authorization'].includes(name.toLowerCase())));
}

/** A request body (isomorphic-git gives arrays or async iterators) as one buffer. */
export async function collect(body: AsyncIterableIterator<Uint8Array> | Uint8Array[] | Iterable<Uint8Array> | AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of body as AsyncIterable<Uint8Array>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

async function drain(response: GitHttpResponse): Promise<void> {
  if (!response.body) return;
  for await (const chunk of response.body) void chunk;
}
