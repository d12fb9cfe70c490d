import { createHash } from 'node:crypto';
import { createServer as createHttpServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { borrowingHttp, HttpProtocolError } from '../../../src/app/git/borrowing-http.js';

/** Deterministic bytes: counter-mode SHA-256 of a seed. */
function bytes(length: number, seed = 'body'): Buffer {
  const out = Buffer.alloc(length);
  for (let at = 0, n = 0; at < length; n++) at += createHash('sha256').update(`${seed}:${n}`).digest().copy(out, at);
  return out;
}

const servers: (Server | NetServer)[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

async function listen<T extends Server | NetServer>(server: T): Promise<string> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  return `http://127.0.0.1:${address.port}`;
}

/** A raw TCP server answering every connection with `answer` (bytes written as given, then closed unless told). */
function rawServer(answer: (socket: Socket) => void): NetServer {
  return createNetServer((socket) => {
    socket.once('data', () => answer(socket));
    socket.on('error', () => undefined);
  });
}

/** Read a body the way fetchPackV2 does: every chunk consumed (here copied) before the next is asked for. */
async function readBody(
  body: AsyncIterableIterator<Uint8Array> | undefined,
  pause = false,
): Promise<{ data: Buffer; buffers: Set<ArrayBufferLike>; chunks: number }> {
  const parts: Buffer[] = [];
  const buffers = new Set<ArrayBufferLike>();
  let chunks = 0;
  for await (const chunk of body ?? []) {
    chunks++;
    buffers.add(chunk.buffer);
    parts.push(Buffer.from(chunk));
    if (pause) await new Promise((resolve) => setTimeout(resolve, 1));
  }
  return { data: Buffer.concat(parts), buffers, chunks };
}

describe('borrowingHttp', () => {
  it('sends the request as given and reads a chunked answer of many pieces into one reused buffer', async () => {
    const payload = bytes(3 * 1024 * 1024);
    let seen: { method?: string; url?: string; headers: IncomingMessage['headers']; body: Buffer } | undefined;
    const url = await listen(
      createHttpServer((req, res) => {
        const parts: Buffer[] = [];
        req.on('data', (c: Buffer) => parts.push(c));
        req.on('end', async () => {
          seen = { method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(parts) };
          res.writeHead(200, { 'content-type': 'application/x-git-upload-pack-result' });
          // Pieces of odd sizes, some written apart, so chunk framing falls anywhere in a read.
          for (let at = 0, n = 0; at < payload.byteLength; n++) {
            const size = [1, 7, 4093, 65_536, 100_003][n % 5];
            res.write(payload.subarray(at, at + size));
            at += size;
            if (n % 50 === 0) await new Promise((resolve) => setImmediate(resolve));
          }
          res.end();
        });
      }),
    );
    const response = await borrowingHttp.request({
      url: `${url}/repo.git/git-upload-pack?x=1`,
      method: 'POST',
      headers: { 'Git-Protocol': 'version=2', authorization: 'Basic abc' },
      body: (async function* () {
        yield Buffer.from('0014command=fetch\n');
        yield Buffer.from('0000');
      })(),
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers?.['transfer-encoding']).toBe('chunked');
    const { data, buffers, chunks } = await readBody(response.body);
    expect(data.equals(payload)).toBe(true);
    expect(chunks).toBeGreaterThan(50);
    // Every piece is a view of the same buffer: nothing is allocated per read.
    expect(buffers.size).toBe(1);
    expect(seen).toMatchObject({
      method: 'POST',
      url: '/repo.git/git-upload-pack?x=1',
      headers: { 'git-protocol': 'version=2', authorization: 'Basic abc', 'content-length': '22', connection: 'close' },
    });
    expect(seen!.body.toString()).toBe('0014command=fetch\n0000');
  });

  it('waits for a slow reader (the socket pauses) and reads answers framed by length or by the end of the connection', async () => {
    const payload = bytes(700 * 1024, 'slow');
    const url = await listen(createHttpServer((_req, res) => res.writeHead(200, { 'content-length': String(payload.byteLength) }).end(payload)));
    const byLength = await borrowingHttp.request({ url: `${url}/x`, method: 'GET', headers: {} });
    expect((await readBody(byLength.body, true)).data.equals(payload)).toBe(true);

    const raw = await listen(rawServer((socket) => socket.end(Buffer.concat([Buffer.from('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n'), payload]))));
    const byClose = await borrowingHttp.request({ url: `${raw}/x`, method: 'GET', headers: {} });
    expect((await readBody(byClose.body, true)).data.equals(payload)).toBe(true);
  });

  it('skips an interim answer and gives the final one; an empty answer has an empty body', async () => {
    const raw = await listen(
      rawServer((socket) => socket.end('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic\r\nContent-Length: 0\r\n\r\n')),
    );
    const response = await borrowingHttp.request({ url: `${raw}/x`, method: 'GET', headers: {} });
    expect(response.statusCode).toBe(401);
    expect(response.headers?.['www-authenticate']).toBe('Basic');
    expect((await readBody(response.body)).data.byteLength).toBe(0);
  });

  it('refuses what is not a whole HTTP/1.1 answer: cut short, a bad chunk size, an encoding it did not ask for, not HTTP at all', async () => {
    const answers: Record<string, string> = {
      cut: 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n0123456',
      badSize: 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n',
      shortLength: 'HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly this',
      gzip: 'HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 3\r\n\r\nabc',
      notHttp: 'SSH-2.0-OpenSSH\r\n\r\n',
      closedEarly: 'HTTP/1.1 200 OK\r\nContent-',
    };
    for (const [name, answer] of Object.entries(answers)) {
      const raw = await listen(rawServer((socket) => socket.end(answer)));
      const attempt = (async () => readBody((await borrowingHttp.request({ url: `${raw}/x`, method: 'GET', headers: {} })).body))();
      await expect(attempt, name).rejects.toBeInstanceOf(HttpProtocolError);
    }
  });

  it('refuses a head too large and a header that would split the request', async () => {
    const raw = await listen(rawServer((socket) => socket.write(`HTTP/1.1 200 OK\r\nX-Big: ${'a'.repeat(100 * 1024)}`)));
    await expect(borrowingHttp.request({ url: `${raw}/x`, method: 'GET', headers: {} })).rejects.toThrow(/head too large/);
    await expect(borrowingHttp.request({ url: `${raw}/x`, method: 'GET', headers: { 'x-a': 'b\r\nInjected: yes' } })).rejects.toThrow(/invalid header/);
  });

  it('lets the connection go when the reader stops early', async () => {
    let closed = false;
    const url = await listen(
      createHttpServer((req, res) => {
        res.writeHead(200);
        const timer = setInterval(() => res.write(bytes(64 * 1024, 'endless')), 1);
        req.socket.on('close', () => {
          closed = true;
          clearInterval(timer);
        });
      }),
    );
    const response = await borrowingHttp.request({ url: `${url}/x`, method: 'GET', headers: {} });
    const iterator = response.body!;
    expect((await iterator.next()).done).toBe(false);
    await iterator.return!();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(closed).toBe(true);
  });
});
