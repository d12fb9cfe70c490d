/** Bytes as a string of code units 0-255, so line diffs and patches stay byte-exact. */
export function bytesToBinaryString(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 8192) out += String.fromCharCode(...bytes.subarray(i, i + 8192));
  return out;
}

/** Inverse of `bytesToBinaryString`. */
export function binaryStringToBytes(text: string): Uint8Array {
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i) & 0xff;
  return out;
}

/** UTF-8 text as a binary string (each code unit one byte). */
export function utf8ToBinaryString(text: string): string {
  return bytesToBinaryString(new TextEncoder().encode(text));
}
