/**
 * Process environment the worker is deployed with, for what has to be set before the process
 * starts (serverless.yml sets it; a deploy test checks that they agree, and the ingestion
 * benchmark runs its child with it).
 *
 * `MALLOC_ARENA_MAX`: glibc gives each thread that allocates its own malloc arena, and V8's
 * background threads (the optimising compiler, the garbage collector) each keep one, with what
 * they freed still resident. On a generated 10k-file repository (a 2.29 MB pack) that was the
 * difference between 10.4 MB (median of five; worst 11.2) and 7.8 MB (worst 9.1) of peak memory
 * above the process's baseline (docs/architecture.md, "Ingestion"). Two arenas rather than one,
 * so the main thread does not wait on the background threads' allocations.
 */
export const WORKER_PROCESS_ENVIRONMENT: Readonly<Record<string, string>> = { MALLOC_ARENA_MAX: '2' };
