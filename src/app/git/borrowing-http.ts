import { isIP } from 'node:net';
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import type { GitHttpRequest, GitHttpResponse, HttpClient } from 'isomorphic-git';
import { collect } from './scoped-credentials.js';

const READ_BUFFER_BYTES = 64 * 1024;
const MAX_HEAD_BYTES = 64 * 1024;
/** A chunk-size line or a trailer line longer than this is not HTTP. */
const MAX_LINE_BYTES = 4 * 1024;
/** A connection silent this long is given up (the caller's deadline usually comes first). */
const IDLE_TIMEOUT_MS = 120_000;

export class HttpProtocolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HttpProtocolError';
  }
}

/**
 * An HTTP/1.1 client for the smart-HTTP requests of a protocol v2 fetch that reads its socket
 * into one buffer, reused for every read (the socket's `onread` option), instead of a new
 * buffer per read. Node's own client allocates each read; the pieces are garbage as soon as
 * the indexer has copied them, but wait for a collection that a download allocating little
 * else does not trigger: fetching a 10.5 MB pack left 20 MB more resident with it, nothing
 * with this one (docs/architecture.md, "Ingestion").
 *
 * **Body chunks are borrowed**: each is valid until the next one is asked for (the socket is
 * paused meanwhile). A consumer that keeps bytes copies them; `fetchPackV2` does. One request
 * per connection (`Connection: close`), http and https; redirects are answered as they are
 * (`scopeCredentials` follows them); no content or transfer coding but `chunked` is accepted
 * (none is asked for).
 */
export const borrowingHttp: HttpClient = {
  async request(request: GitHttpRequest): Promise<GitHttpResponse> {
    const url = new URL(request.url);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new HttpProtocolError(`not an http(s) URL: ${url.protocol}`);
    const method = (request.method ?? 'GET').toUpperCase();
    const body = request.body ? await collect(request.body) : undefined;
    const headers: Record<string, string> = { host: url.host };
    for (const [name, value] of Object.entries(request.headers ?? {})) headers[name.toLowerCase()] = String(value);
    headers.connection = 'close';
    if (body) headers['content-length'] = String(body.byteLength);
    else delete headers['content-length'];
    delete headers['transfer-encoding'];
    let head = `${method} ${url.pathname}${url.search} HTTP/1.1\r\n`;
    for (const [name, value] of Object.entries(headers)) {
      if (/[\r\n]/.test(name) || /[\r\n]/.test(value) || !/^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(name))
        throw new HttpProtocolError(`invalid header ${JSON.stringify(name)}`);
      head += `${name}: ${value}\r\n`;
    }
    return new Exchange(request.url, method).start(url, `${head}\r\n`, body);
  },
};

type Framing = { kind: 'length'; left: number } | { kind: 'chunked' } | { kind: 'close' } | { kind: 'none' };

/** One request and its response, parsed as the bytes arrive. */
class Exchange {
  private readonly buffer: Buffer = Buffer.allocUnsafe(READ_BUFFER_BYTES);
  private socket?: Socket;
  private headBytes: Buffer[] = [];
  private headLength = 0;
  private framing?: Framing;
  /** Chunked body: where the parser is, the bytes left of the current chunk, the line so far. */
  private chunkState: 'size' | 'data' | 'data-end' | 'trailer' = 'size';
  private chunkLeft = 0;
  private line = '';
  /** Views of `buffer` not yet handed out; `lent` while the consumer holds one. */
  private pieces: Buffer[] = [];
  private lent = false;
  private paused = false;
  private complete = false;
  private failure?: Error;
  private responded?: { resolve: (response: GitHttpResponse) => void; reject: (error: Error) => void };
  private waiting?: { resolve: (item: IteratorResult<Uint8Array>) => void; reject: (error: Error) => void };

  constructor(
    private readonly url: string,
    private readonly method: string,
  ) {}

  start(url: URL, head: string, body: Uint8Array | undefined): Promise<GitHttpResponse> {
    return new Promise((resolve, reject) => {
      this.responded = { resolve, reject };
      const host = url.hostname.replace(/^\[|\]$/g, '');
      const secure = url.protocol === 'https:';
      const port = Number(url.port || (secure ? 443 : 80));
      const onread = { buffer: this.buffer, callback: (bytes: number) => this.onRead(bytes) };
      const socket = secure
        ? tlsConnect({ host, port, servername: isIP(host) ? undefined : host, ALPNProtocols: ['http/1.1'], onread } as never)
        : netConnect({ host, port, onread });
      this.socket = socket;
      socket.setNoDelay(true);
      socket.setTimeout(IDLE_TIMEOUT_MS, () => this.fail(new HttpProtocolError('connection idle for too long')));
      socket.on('error', (error) => this.fail(error));
      socket.on('end', () => this.onEnd());
      socket.on('close', () => this.onEnd());
      socket.write(head, 'latin1');
      if (body && body.byteLength > 0) socket.write(body);
    });
  }

  /** Bytes arrived in `buffer`: parsed now (the next read reuses it); false pauses the socket. */
  private onRead(bytes: number): boolean {
    if (this.complete || this.failure) return false;
    try {
      let data: Buffer = this.buffer.subarray(0, bytes);
      if (!this.framing) {
        const rest = this.readHead(data);
        if (!rest) return true;
        data = rest;
      }
      this.readBody(data);
    } catch (error) {
      this.fail(error as Error);
      return false;
    }
    this.hand();
    if (this.pieces.length > 0 || this.lent) {
      this.paused = true;
      return false;
    }
    return !this.complete;
  }

  /** Head bytes until the empty line; the body bytes after it, or undefined while the head is incomplete. */
  private readHead(data: Buffer): Buffer | undefined {
    this.headBytes.push(Buffer.from(data));
    this.headLength += data.byteLength;
    const all = this.headBytes.length === 1 ? this.headBytes[0] : Buffer.concat(this.headBytes);
    const end = all.indexOf('\r\n\r\n');
    if (end < 0) {
      if (this.headLength > MAX_HEAD_BYTES) throw new HttpProtocolError('response head too large');
      this.headBytes = [all];
      return undefined;
    }
    this.headBytes = [];
    this.headLength = 0;
    const lines = all.toString('latin1', 0, end).split('\r\n');
    const status = /^HTTP\/1\.[01] (\d{3})(?: (.*))?$/.exec(lines[0]);
    if (!status) throw new HttpProtocolError('not an HTTP/1.1 response');
    const statusCode = Number(status[1]);
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      if (colon <= 0 || /^\s/.test(line)) throw new HttpProtocolError('malformed response header');
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
    }
    // The body starts after the empty line; only the bytes of this read (earlier ones were head).
    const rest = data.subarray(data.byteLength - (all.byteLength - end - 4));
    // An interim answer (100 Continue): the real one follows.
    if (statusCode >= 100 && statusCode < 200) return rest.byteLength > 0 ? this.readHead(rest) : undefined;
    this.framing = framingOf(this.method, statusCode, headers);
    if (this.framing.kind === 'none') this.finish();
    const body: AsyncIterableIterator<Uint8Array> = {
      [Symbol.asyncIterator]() {
        return this;
      },
      next: () => this.next(),
      return: async () => {
        this.close();
        return { done: true, value: undefined };
      },
    };
    this.responded?.resolve({ url: this.url, method: this.method, statusCode, statusMessage: status[2] ?? '', headers, body });
    this.responded = undefined;
    return rest;
  }

  private readBody(data: Buffer): void {
    const framing = this.framing!;
    let at = 0;
    while (at < data.byteLength && !this.complete) {
      if (framing.kind === 'close') {
        this.pieces.push(data.subarray(at));
        return;
      }
      if (framing.kind === 'length') {
        const take = this.lend(data, at, framing.left);
        at += take;
        framing.left -= take;
        if (framing.left === 0) this.finish();
        continue;
      }
      if (this.chunkState === 'data') {
        const take = this.lend(data, at, this.chunkLeft);
        at += take;
        this.chunkLeft -= take;
        if (this.chunkLeft === 0) this.chunkState = 'data-end';
        continue;
      }
      // A line: a chunk's size, the CRLF after its data, or a trailer.
      const newline = data.indexOf(10, at);
      const upto = newline < 0 ? data.byteLength : newline;
      this.line += data.toString('latin1', at, upto);
      if (this.line.length > MAX_LINE_BYTES) throw new HttpProtocolError('chunk line too long');
      at = upto;
      if (newline < 0) continue;
      at += 1;
      const line = this.line.replace(/\r$/, '');
      this.line = '';
      if (this.chunkState === 'size') {
        const size = /^([0-9a-fA-F]{1,12})(?:[ \t]*;.*)?$/.exec(line);
        if (!size) throw new HttpProtocolError('malformed chunk size');
        this.chunkLeft = parseInt(size[1], 16);
        this.chunkState = this.chunkLeft === 0 ? 'trailer' : 'data';
      } else if (this.chunkState === 'data-end') {
        if (line !== '') throw new HttpProtocolError('chunk longer than its size');
        this.chunkState = 'size';
      } else if (line === '') this.finish();
    }
  }

  /** Queue up to `left` body bytes of `data` from `at` for the consumer; how many were taken. */
  private lend(data: Buffer, at: number, left: number): number {
    const take = Math.min(left, data.byteLength - at);
    this.pieces.push(data.subarray(at, at + take));
    return take;
  }

  /** The message is complete: nothing more is read. */
  private finish(): void {
    this.complete = true;
    this.socket?.destroy();
  }

  private onEnd(): void {
    if (this.complete || this.failure) return;
    if (this.framing?.kind === 'close') {
      this.complete = true;
      this.hand();
      return;
    }
    this.fail(new HttpProtocolError(this.framing ? 'connection closed before the end of the response body' : 'connection closed before a response'));
  }

  private fail(error: Error): void {
    if (this.complete && this.pieces.length === 0 && !this.waiting) return;
    this.failure ??= error;
    this.socket?.destroy();
    this.responded?.reject(this.failure);
    this.responded = undefined;
    this.hand();
  }

  /** Give the waiting consumer a piece, the end or the failure. */
  private hand(): void {
    const waiting = this.waiting;
    if (!waiting) return;
    if (this.pieces.length > 0) {
      this.waiting = undefined;
      this.lent = true;
      waiting.resolve({ done: false, value: this.pieces.shift()! });
    } else if (this.failure) {
      this.waiting = undefined;
      waiting.reject(this.failure);
    } else if (this.complete) {
      this.waiting = undefined;
      waiting.resolve({ done: true, value: undefined });
    }
  }

  private next(): Promise<IteratorResult<Uint8Array>> {
    this.lent = false;
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.hand();
      if (this.waiting && this.paused && !this.complete && !this.failure) {
        this.paused = false;
        this.socket?.resume();
      }
    });
  }

  private close(): void {
    this.pieces = [];
    if (!this.complete) {
      this.complete = true;
      this.socket?.destroy();
    }
  }
}

function framingOf(method: string, statusCode: number, headers: Record<string, string>): Framing {
  if (method === 'HEAD' || statusCode === 204 || statusCode === 304) return { kind: 'none' };
  const coding = headers['content-encoding']?.trim().toLowerCase();
  if (coding && coding !== 'identity') throw new HttpProtocolError(`unsupported content-encoding ${coding.slice(0, 40)}`);
  const transfer = headers['transfer-encoding'];
  if (transfer !== undefined) {
    if (transfer.trim().toLowerCase() !== 'chunked') throw new HttpProtocolError(`unsupported transfer-encoding ${transfer.slice(0, 40)}`);
    return { kind: 'chunked' };
  }
  const length = headers['content-length'];
  if (length !== undefined) {
    if (!/^\d{1,15}$/.test(length.trim())) throw new HttpProtocolError('malformed content-length');
    const left = Number(length.trim());
    return left === 0 ? { kind: 'none' } : { kind: 'length', left };
  }
  return { kind: 'close' };
}
