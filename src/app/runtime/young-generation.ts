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

/**
 * V8's own growth again (factor 2, its default). What follows ingestion (the map, a cached map's
 * parse, the phases) allocates short-lived objects by the million and keeps few: there a larger
 * young generation saves more scavenges than its memory costs (a cached 100k-file map parsed
 * about 20 % faster in the repository-map benchmark).
 */
function releaseYoungGenerationSize(): void {
  setFlagsFromString('--semi-space-growth-factor=2');
}

/**
 * What the composition roots that ingest pass to the pipeline (`PipelineDeps.ingestionMemory`):
 * the young generation kept at its size while a snapshot is ingested, free to grow after. A warm
 * worker caps it again at each ingestion, so that what grew after one does not grow further.
 */
export const youngGenerationDuringIngestion = { enter: keepYoungGenerationSize, leave: releaseYoungGenerationSize };
