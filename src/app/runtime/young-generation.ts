import { setFlagsFromString } from 'node:v8';

/**
 * Keep V8's young generation at the size it has when the process starts, instead of letting it
 * double (up to 16 MiB per semi-space). Ingestion keeps tens of thousands of small records alive
 * (catalog entries, names, paths); each scavenge that sees them survive doubles the young
 * generation, and every doubling is fresh memory to touch, which on a small machine costs more
 * than the extra scavenges it saves. Loading a composition root's bundle alone (the AWS SDK, the
 * grammars' glue) grows it to its maximum, so the setting has to come first: see
 * `keep-young-generation.ts`, which a composition root imports before anything else. Measured
 * on a generated 10k-file repository (docs/architecture.md, "Ingestion").
 *
 * V8 reads the growth factor each time it decides to grow, so setting it after start-up takes
 * effect; it does not shrink what has already grown.
 */
export function keepYoungGenerationSize(): void {
  setFlagsFromString('--semi-space-growth-factor=1');
}
