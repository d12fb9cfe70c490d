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
    chunks.push(chunk);
    total += chunk.byteLength;
  }
  return Buffer.concat(chunks, total);
}

/** The payloads of a response's pkt-lines, flush and delimiter packets skipped. */
function* pktPayloads(raw: Buffer): Generator<Buffer> {
  let at = 0;
  while (at + 4 <= raw.length) {
    const length = pktLength(raw, at);
    if (length < 4) {
      at += 4;
      continue;
    }
    yield raw.subarray(at + 4, at + length);
    at += length;
  }
}

function pktLength(raw: Buffer, at: number): number {
  const length = parseInt(raw.toString('latin1', at, at + 4), 16);
  if (Number.isNaN(length)) throw new FetchPackError('malformed pkt-line');
  return length;
}

/**
 * The same payloads as they arrive, so the pack can be indexed while it downloads. Only a
 * partial pkt-line (at most 64 KiB) is carried over between chunks.
 */
async function* pktPayloadStream(body: AsyncIterableIterator<Uint8Array> | undefined): AsyncGenerator<Buffer> {
  let parts: Buffer[] = [];
  let have = 0;
  // Bytes the next pkt-line needs before it can be cut: chunks are joined only then.
  let need = 4;
  for await (const chunk of body ?? []) {
    parts.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    have += chunk.byteLength;
    if (have < need) continue;
    const raw = parts.length === 1 ? parts[0] : Buffer.concat(parts, have);
    let at = 0;
    for (;;) {
      if (raw.length - at < 4) {
        need = 4;
        break;
      }
      const length = pktLength(raw, at);
      if (length < 4) {
        at += 4;
        continue;
      }
      if (raw.length - at < length) {
        need = length;
        break;
      }
      yield raw.subarray(at + 4, at + length);
      at += length;
    }
    parts = at < raw.length ? [raw.subarray(at)] : [];
    have = raw.length - at;
  }
  if (have > 0) throw new FetchPackError('truncated pkt-line');
}

/** Text pkt-lines of a response, flush and delimiter packets skipped. */
function pktLines(raw: Buffer): string[] {
  return [...pktPayloads(raw)].map((payload) => payload.toString('utf8').replace(/\n$/, ''));
}

/**
 * The features of the server's protocol v2 `fetch` command (`shallow`, `filter`, ...), from its
 * capability advertisement. Throws FetchPackError when the server does not speak v2.
 */
export async function fetchFeaturesV2(options: { http: HttpClient; url: string; authorization?: string }): Promise<Set<string>> {
  const headers: Record<string, string> = { ...HEADERS };
  if (options.authorization) headers.authorization = options.authorization;
  const response = await options.http.request({ url: `${baseUrl(options.url)}/info/refs?service=git-upload-pack`, method: 'GET', headers });
  const raw = await readAll(response.body);
  if (response.statusCode !== 200) throw new FetchPackError(`capability advertisement answered ${response.statusCode}`, response.statusCode);
  const lines = pktLines(raw);
  if (!lines.includes('version 2')) throw new FetchPackError('the server does not advertise protocol v2');
  const fetch = lines.find((l) => l === 'fetch' || l.startsWith('fetch='));
  if (fetch === undefined) throw new FetchPackError('the server advertises no fetch command');
  return new Set(fetch.startsWith('fetch=') ? fetch.slice('fetch='.length).split(' ').filter((f) => f !== '') : []);
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
  const response = await http.request({ url: `${baseUrl(url)}/git-upload-pack`, method: 'POST', headers, body: (async function* () { yield* body; })() });
  if (response.statusCode !== 200) throw new FetchPackError(`upload-pack answered ${response.statusCode}`, response.statusCode);

  // Sections: optional acknowledgments, shallow-info, then packfile (side-band 1 = data),
  // indexed as it streams in.
  const indexer = new PackIndexer(options.limits);
  let packChunks = 0;
  // A refusal while indexing waits for the end of the transfer: the byte cap, when the transfer
  // passes it, is the reason given (as when the pack was read whole before indexing).
  let refused: { error: unknown } | undefined;
  const shallow: string[] = [];
  let section = '';
  for await (const payload of pktPayloadStream(response.body)) {
    if (section === 'packfile') {
      const band = payload[0];
      if (band === 1) {
        packChunks++;
        if (refused) continue;
        try {
          indexer.push(payload.subarray(1));
        } catch (error) {
          refused = { error };
        }
      } else if (band === 3) throw new FetchPackError(`server error: ${payload.subarray(1).toString('utf8').trim().slice(0, 200)}`, 200, true);
      continue;
    }
    const line = payload.toString('utf8').replace(/\n$/, '');
    if (line === 'shallow-info' || line === 'packfile' || line === 'acknowledgments' || line === 'wanted-refs') section = line;
    else if (line.startsWith('ERR ')) throw new FetchPackError(`server error: ${line.slice(4, 200)}`, 200, /not our ref|want/i.test(line));
    else if (section === 'shallow-info' && line.startsWith('shallow ')) shallow.push(line.slice(8));
  }
  if (refused) throw refused.error;
  if (section !== 'packfile' || packChunks === 0) throw new FetchPackError('no packfile section: not a protocol v2 answer');
  const { idx, oids, packSha, pack, catalog } = await indexer.finish();
  if (!wants.every((w) => catalog.has(w))) throw new FetchPackError('the pack does not hold every wanted object');
  await fs.promises.mkdir(`${gitdir}/objects/pack`, { recursive: true });
  await fs.promises.writeFile(`${gitdir}/objects/pack/pack-${packSha}.pack`, pack);
  await fs.promises.writeFile(`${gitdir}/objects/pack/pack-${packSha}.idx`, idx);
  if (shallow.length > 0) await fs.promises.writeFile(`${gitdir}/shallow`, `${shallow.sort().join('\n')}\n`);
  else if (options.depth !== undefined || options.deepenSince !== undefined) await fs.promises.unlink(`${gitdir}/shallow`).catch(() => undefined);
  return { packBytes: pack.byteLength, objects: oids.length, shallow, catalog };
}
