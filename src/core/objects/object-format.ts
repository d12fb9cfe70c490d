// Git's object format: values and orderings every layer that reads or writes git objects shares.

/** The all-zero object id git prints for a missing side. */
export const ZERO_OID = '0000000000000000000000000000000000000000';

/** Git's own heuristic: a NUL byte in the first 8000 bytes makes a file binary. */
export function isBinaryContent(bytes: Uint8Array): boolean {
  // The engine's own search (ingestion asks this of every blob in a pack), not a loop in JavaScript.
  const nul = bytes.indexOf(0);
  return nul !== -1 && nul < 8000;
}

/** Byte-wise comparison of UTF-8 paths (git sorts index entries and status output by bytes). */
export function compareBytes(a: string, b: string): number {
  const ea = encoder.encode(a);
  const eb = encoder.encode(b);
  const n = Math.min(ea.length, eb.length);
  for (let i = 0; i < n; i++) if (ea[i] !== eb[i]) return ea[i] - eb[i];
  return ea.length - eb.length;
}

const encoder = new TextEncoder();
