import { setFlagsFromString } from 'node:v8';

/**
 * Keep V8's young generation at the size it has when the process starts its work, instead of
 * letting it double (up to 16 MiB per semi-space) while a large repository is ingested. Ingestion
 * keeps tens of thousands of small records alive (catalog entries, names, paths); each scavenge
 * that sees them survive doubles the young generation, and every doubling is fresh memory to
 * touch, which on a small machine costs more than the extra scavenges it saves. Measured on a
 * generated 10k-file repository: ingestion 615-1043 ms → 500-544 ms, peak RSS above the
 * process's baseline 40-46 MB → 28-29 MB (docs/architecture.md, "Ingestion").
 *
 * V8 reads the growth factor each time it decides to grow, so setting it after start-up takes
 * effect. Called once by each composition root that ingests (the CLI, the worker).
 */
export function keepYoungGenerationSize(): void {
  setFlagsFromString('--semi-space-growth-factor=1');
}
