import type { HttpClient } from 'isomorphic-git';
import type { FsLike } from '../../core/ports.js';
import type { InflateLimits } from '../../core/ingestion/inflate-budget.js';
import { indexPack } from '../../core/ingestion/index-pack.js';

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

/**
 * Fetch exactly one commit with depth 1 over smart HTTP, protocol v2 (`command=fetch`, `want
 * <sha>`, `deepen 1`), and index the pack natively (`indexPack`) instead of in JavaScript
 * inflate-and-hash: the pack is stored with its `.idx` and the `shallow` file, nothing else.
 * Throws FetchPackError when the server does not answer as protocol v2 does; the caller then
 * falls back to isomorphic-git's fetch.
 */
export async function fetchCommitV2(options: {
  http: HttpClient;
  url: string;
  fs: FsLike;
  gitdir: string;
  commitSha: string;
  /** `Basic ...` when a token is known; never logged, never stored. */
  authorization?: string;
  /** Caps on the inflated size of the pack's objects (the byte cap only counts compressed bytes). */
  limits?: InflateLimits;
}): Promise<{ packBytes: number; objects: number }> {
  const { http, url, fs, gitdir, commitSha } = options;
  const body = [
    pktLine('command=fetch\n'),
    pktLine('object-format=sha1\n'),
    encoder.encode('0001'),
    pktLine('no-progress\n'),
    pktLine('ofs-delta\n'),
    pktLine(`want ${commitSha}\n`),
    pktLine('deepen 1\n'),
    pktLine('done\n'),
    encoder.encode('0000'),
  ];
  const headers: Record<string, string> = {
    'content-type': 'application/x-git-upload-pack-request',
    accept: 'application/x-git-upload-pack-result',
    'git-protocol': 'version=2',
    'user-agent': 'git/draftsman',
  };
  if (options.authorization) headers.authorization = options.authorization;
  const response = await http.request({ url: `${url.replace(/\/$/, '')}/git-upload-pack`, method: 'POST', headers, body: (async function* () { yield* body; })() });
  if (response.statusCode !== 200) throw new FetchPackError(`upload-pack answered ${response.statusCode}`, response.statusCode);
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of response.body ?? []) {
    chunks.push(chunk);
    total += chunk.byteLength;
  }
  const raw = Buffer.concat(chunks, total);

  // Sections: optional acknowledgments, shallow-info, then packfile (side-band 1 = data).
  const pack: Uint8Array[] = [];
  const shallow: string[] = [];
  let section = '';
  let at = 0;
  while (at + 4 <= raw.length) {
    const length = parseInt(raw.subarray(at, at + 4).toString('latin1'), 16);
    if (Number.isNaN(length)) throw new FetchPackError('malformed pkt-line');
    if (length < 4) {
      at += 4;
      continue;
    }
    const payload = raw.subarray(at + 4, at + length);
    at += length;
    if (section === 'packfile') {
      const band = payload[0];
      if (band === 1) pack.push(payload.subarray(1));
      else if (band === 3) throw new FetchPackError(`server error: ${payload.subarray(1).toString('utf8').trim().slice(0, 200)}`, 200, true);
      continue;
    }
    const line = payload.toString('utf8').replace(/\n$/, '');
    if (line === 'shallow-info' || line === 'packfile' || line === 'acknowledgments' || line === 'wanted-refs') section = line;
    else if (line.startsWith('ERR ')) throw new FetchPackError(`server error: ${line.slice(4, 200)}`, 200, /not our ref|want/i.test(line));
    else if (section === 'shallow-info' && line.startsWith('shallow ')) shallow.push(line.slice(8));
    else if (section === '' && !line) continue;
  }
  if (section !== 'packfile' || pack.length === 0) throw new FetchPackError('no packfile section: not a protocol v2 answer');
  const packBytes = Buffer.concat(pack);
  const { idx, oids, packSha } = await indexPack(packBytes, options.limits);
  if (!oids.includes(commitSha)) throw new FetchPackError('the pack does not hold the wanted commit');
  await fs.promises.mkdir(`${gitdir}/objects/pack`, { recursive: true });
  await fs.promises.writeFile(`${gitdir}/objects/pack/pack-${packSha}.pack`, packBytes);
  await fs.promises.writeFile(`${gitdir}/objects/pack/pack-${packSha}.idx`, idx);
  if (shallow.length > 0) await fs.promises.writeFile(`${gitdir}/shallow`, `${shallow.sort().join('\n')}\n`);
  return { packBytes: packBytes.byteLength, objects: oids.length };
}
