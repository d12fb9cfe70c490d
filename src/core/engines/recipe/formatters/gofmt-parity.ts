import type { DeclaredFormatter, ParityContext } from './formatter-parity.js';
import { loadGofmt } from './wasm-formatters.js';

const isGo = (path: string) => path.endsWith('.go');

/**
 * gofmt, which every Go project is held to (the toolchain's own formatter, with no options):
 * a changed Go file comes out as gofmt prints it, alignment of struct fields, const groups,
 * composite literals and trailing comments included.
 */
export async function declaredGofmt({ loadWasm }: ParityContext, changed: readonly string[]): Promise<DeclaredFormatter | undefined> {
  if (!changed.some(isGo)) return undefined;
  const gofmt = await loadGofmt(loadWasm);
  return {
    label: 'gofmt',
    handles: isGo,
    format(text) {
      try {
        return Promise.resolve(gofmt(text));
      } catch {
        return Promise.resolve(undefined);
      }
    },
  };
}
