import type { HttpClient } from 'isomorphic-git';
import type { FsLike } from '../../core/ports.js';
import type { InflateLimits } from '../../core/ingestion/inflate-budget.js';
import { PackIndexer } from '../../core/ingestion/index-pack.js';
import type { PackCatalog } from '../../core/ingestion/pack-catalog.js';

export class FetchPackError extends Error {
  constructor(
    message: string,
    readonly statusCode?: number,
    /** The server speaks v2 and refused the `want` (e.g. the SHA is no longer reachable). */
    readonly refusedWant = false,
  ) {
    super(message);
    this.name = 'FetchPackError';
  }
}

const encoder = new TextEncoder();

function pktLine(text: string): Uint8Array {
  const body = encoder.encode(text);
  return encoder.encode((body.length + 4).toString(16).padStart(4, '0') + text);
}

const HEADERS = { 'git-protocol': 'version=2', 'user-agent': 'git/draftsman' };

function baseUrl(url: string): string {
  return url.replace(/\/$/, '');
}

async function readAll(body: AsyncIterableIterator<Uint8Array> | undefined): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of body ?? []) {
    // Copied: a chunk may be borrowed, valid only until the next (`borrowingHttp`).
    chunks.push(Uint8Array.prototype.slice.call(chunk));
    total += chunk.byteLength;
  }
  return Buffer.concat(chunks, total);
}

/**
 * pkt-lines cut from a response as its bytes arrive. Inside the packfile section, the data of
 * side band 1 goes to `onPackData` in the pieces the network delivered, neither joined nor copied
 * (the indexer copies them once, into the pack); any other payload (text lines, progress, errors)
 * is joined and handed to `onPayload` whole. Flush and delimiter packets are skipped. Nothing of
 * a chunk is kept after `push` returns (a payload cut across chunks is copied), so chunks may be
 * borrowed buffers that the next read overwrites.
 */
export class PktLineReader {
  private readonly header = Buffer.alloc(4);
  private headerHave = 0;
  /** Payload bytes of the current pkt-line still to come. */
  private left = 0;
  /** What the current payload is, decided at its first byte. */
  private mode: 'pack' | 'whole' | undefined;
  private parts: Buffer[] = [];

  constructor(
    private readonly inPackfile: () => boolean,
    private readonly onPackData: (piece: Buffer) => void,
    private readonly onPayload: (payload: Buffer) => void,
  ) {}

  push(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length) {
      if (this.left === 0) {
        const take = Math.min(4 - this.headerHave, chunk.length - at);
        chunk.copy(this.header, this.headerHave, at, at + take);
        this.headerHave += take;
        at += take;
        if (this.headerHave < 4) return;
        this.headerHave = 0;
        const text = this.header.toString('latin1');
        if (!/^[0-9a-f]{4}$/i.test(text)) throw new FetchPackError('malformed pkt-line');
        const length = parseInt(text, 16);
        if (length < 4) continue;
        this.left = length - 4;
        this.mode = undefined;
        if (this.left === 0) this.onPayload(Buffer.alloc(0));
        continue;
      }
      if (this.mode === undefined) {
        this.mode = this.inPackfile() && chunk[at] === 1 ? 'pack' : 'whole';
        if (this.mode === 'pack') {
          at += 1;
          this.left -= 1;
          if (this.left === 0) this.mode = undefined;
          continue;
        }
      }
      const take = Math.min(this.left, chunk.length - at);
      const piece = chunk.subarray(at, at + take);
      at += take;
      this.left -= take;
      if (this.mode === 'pack') this.onPackData(piece);
      else if (this.left > 0 || this.parts.length > 0) this.parts.push(Buffer.from(piece));
      if (this.left === 0) {
        if (this.mode === 'whole') {
          const parts = this.parts;
          this.parts = [];
          this.onPayload(parts.length === 0 ? piece : parts.length === 1 ? parts[0] : Buffer.concat(parts));
        }
        this.mode = undefined;
      }
    }
  }

  /** The response ended: nothing may be left half read. */
  end(): void {
    if (this.left > 0 || this.headerHave > 0) throw new FetchPackError('truncated pkt-line');
  }
}

/** Text pkt-lines of a whole response, flush and delimiter packets skipped. */
function pktLines(raw: Buffer): string[] {
  const lines: string[] = [];
  const reader = new PktLineReader(
    () => false,
    () => undefined,
    (payload) => lines.push(payload.toString('utf8').replace(/\n$/, '')),
  );
  reader.push(raw);
  reader.end();
  return lines;
}

/**
 * The features of the server's protocol v2 `fetch` command (`shallow`, `filter`, ...), from its
 * capability advertisement. Throws FetchPackError when the server does not speak v2.
 */
export async function fetchFeaturesV2(options: { http: HttpClient; url: string; authorization?: string }): Promise<Set<string>> {
  const headers: Record<string, string> = { ...HEADERS };
  if (options.authorization) headers.authorization = options.authorization;
  const response = await options.http.request({ url: `${baseUrl(options.url)}/info/refs?service=git-upload-pack`, method: 'GET', headers });
  if (response.statusCode !== 200) {
    await response.body?.return?.();
    throw new FetchPackError(`capability advertisement answered ${response.statusCode}`, response.statusCode);
  }
  const raw = await readAll(response.body);
  const lines = pktLines(raw);
  if (!lines.includes('version 2')) throw new FetchPackError('the server does not advertise protocol v2');
  const fetch = lines.find((l) => l === 'fetch' || l.startsWith('fetch='));
  if (fetch === undefined) throw new FetchPackError('the server advertises no fetch command');
  return new Set(
    fetch.startsWith('fetch=')
      ? fetch
          .slice('fetch='.length)
          .split(' ')
          .filter((f) => f !== '')
      : [],
  );
}

export interface FetchPackV2Options {
  http: HttpClient;
  url: string;
  fs: FsLike;
  gitdir: string;
  /** Objects wanted: one commit, or the blobs a blob:none fetch left out. */
  wants: string[];
  /** `deepen <n>`: commits of history from each wanted commit. */
  depth?: number;
  /** `deepen-since <seconds>`: every commit after this time. */
  deepenSince?: number;
  /** `filter blob:none`: commits and trees only. */
  filter?: 'blob:none';
  /** `Basic ...` when a token is known; never logged, never stored. */
  authorization?: string;
  /** Caps on the inflated size of the pack's objects (the byte cap only counts compressed bytes). */
  limits?: InflateLimits;
}

/**
 * One protocol v2 `command=fetch` over smart HTTP (`want`s, optional `deepen`/`deepen-since`
 * and `filter`), the pack indexed and catalogued while it downloads (`PackIndexer`), then
 * stored with its `.idx`; the server's `shallow-info` replaces the
 * `shallow` file. Throws FetchPackError when the server does not answer as protocol v2 does or
 * the pack lacks a wanted object.
 */
export async function fetchPackV2(options: FetchPackV2Options): Promise<{ packBytes: number; objects: number; shallow: string[]; catalog: PackCatalog }> {
  const { http, url, fs, gitdir, wants } = options;
  const body = [
    pktLine('command=fetch\n'),
    pktLine('object-format=sha1\n'),
    encoder.encode('0001'),
    pktLine('no-progress\n'),
    pktLine('ofs-delta\n'),
    ...wants.map((w) => pktLine(`want ${w}\n`)),
    ...(options.depth !== undefined ? [pktLine(`deepen ${options.depth}\n`)] : []),
    ...(options.deepenSince !== undefined ? [pktLine(`deepen-since ${options.deepenSince}\n`)] : []),
    ...(options.filter ? [pktLine(`filter ${options.filter}\n`)] : []),
    pktLine('done\n'),
    encoder.encode('0000'),
  ];
  const headers: Record<string, string> = {
    ...HEADERS,
    'content-type': 'application/x-git-upload-pack-request',
    accept: 'application/x-git-upload-pack-result',
  };
  if (options.authorization) headers.authorization = options.authorization;
  const response = await http.request({
    url: `${baseUrl(url)}/git-upload-pack`,
    method: 'POST',
    headers,
    body: (async function* () {
      yield* body;
    })(),
  });
  if (response.statusCode !== 200) {
    // The answer is not read: its connection is let go now rather than when the server closes it.
    await response.body?.return?.();
    throw new FetchPackError(`upload-pack answered ${response.statusCode}`, response.statusCode);
  }

  // Sections: optional acknowledgments, shallow-info, then packfile (side-band 1 = data),
  // indexed as it streams in.
  const indexer = new PackIndexer(options.limits);
  let packChunks = 0;
  // A refusal while indexing waits for the end of the transfer: the byte cap, when the transfer
  // passes it, is the reason given (as when the pack was read whole before indexing).
  let refused: { error: unknown } | undefined;
  const shallow: string[] = [];
  let section = '';
  const reader = new PktLineReader(
    () => section === 'packfile',
    (piece) => {
      packChunks++;
      if (refused) return;
      try {
        indexer.push(piece);
      } catch (error) {
        refused = { error };
      }
    },
    (payload) => {
      if (section === 'packfile') {
        // Side band 2 is progress (asked not to come); 3 is a fatal error.
        if (payload[0] === 3) throw new FetchPackError(`server error: ${payload.subarray(1).toString('utf8').trim().slice(0, 200)}`, 200, true);
        return;
      }
      const line = payload.toString('utf8').replace(/\n$/, '');
      if (line === 'shallow-info' || line === 'packfile' || line === 'acknowledgments' || line === 'wanted-refs') section = line;
      else if (line.startsWith('ERR ')) throw new FetchPackError(`server error: ${line.slice(4, 200)}`, 200, /not our ref|want/i.test(line));
      else if (section === 'shallow-info' && line.startsWith('shallow ')) shallow.push(line.slice(8));
    },
  );
  for await (const chunk of response.body ?? []) reader.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
  reader.end();
  if (refused) throw refused.error;
  if (section !== 'packfile' || packChunks === 0) throw new FetchPackError('no packfile section: not a protocol v2 answer');
  const { idx, objects, packSha, pack, catalog } = await indexer.finish();
  if (!wants.every((w) => catalog.has(w))) throw new FetchPackError('the pack does not hold every wanted object');
  await fs.promises.mkdir(`${gitdir}/objects/pack`, { recursive: true });
  // The catalog keeps reading `pack`, and nothing else holds `idx`: the file system may keep
  // both rather than copies.
  const keep = (path: string, data: Uint8Array) => (fs.keepFile ? fs.keepFile(path, data) : fs.promises.writeFile(path, data));
  await keep(`${gitdir}/objects/pack/pack-${packSha}.pack`, pack);
  await keep(`${gitdir}/objects/pack/pack-${packSha}.idx`, idx);
  if (shallow.length > 0) await fs.promises.writeFile(`${gitdir}/shallow`, `${shallow.sort().join('\n')}\n`);
  else if (options.depth !== undefined || options.deepenSince !== undefined) await fs.promises.unlink(`${gitdir}/shallow`).catch(() => undefined);
  return { packBytes: pack.byteLength, objects, shallow, catalog };
}
