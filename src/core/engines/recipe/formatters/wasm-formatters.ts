import { format as gofmtFormat, initSync as initGofmt } from '@wasm-fmt/gofmt/web';
import { format as ruffFormat, initSync as initRuff, type Config as RuffConfig } from '@wasm-fmt/ruff_fmt/web';
import type { GrammarLoader } from '../../../syntax/types.js';

export type { RuffConfig };

/**
 * The formatters that run in-process from wasm builds: gofmt and ruff's formatter. Their wasm
 * bytes come through the same loader as the tree-sitter grammars (core reads no files; the
 * Lambda package copies the files next to the bundle). Each module is instantiated once per
 * process; a failed load is forgotten so that a later call can try again.
 */
const ready = new Map<string, Promise<void>>();

function once(name: string, load: GrammarLoader, init: (bytes: Uint8Array) => unknown): Promise<void> {
  let loading = ready.get(name);
  if (!loading) {
    loading = load(name).then((bytes) => {
      init(bytes);
    });
    loading.catch(() => ready.delete(name));
    ready.set(name, loading);
  }
  return loading;
}

/** gofmt over a Go source; throws on a source gofmt cannot parse. */
export async function loadGofmt(load: GrammarLoader): Promise<(source: string) => string> {
  await once('gofmt', load, (bytes) => initGofmt(bytes));
  return (source) => gofmtFormat(source);
}

/** ruff's formatter (Black-compatible) over a Python source; throws on a source it cannot parse. */
export async function loadRuffFormat(load: GrammarLoader): Promise<(source: string, path: string, config: RuffConfig) => string> {
  await once('ruff_fmt', load, (bytes) => initRuff(bytes));
  return (source, path, config) => ruffFormat(source, path, config);
}
