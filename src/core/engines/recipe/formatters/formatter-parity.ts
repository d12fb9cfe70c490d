import type { GrammarLoader } from '../../../syntax/types.js';
import type { Workspace } from '../../../workspace/workspace.js';
import { declaredGofmt } from './gofmt-parity.js';
import { declaredPrettier } from './prettier-parity.js';
import { declaredPythonFormatter } from './python-parity.js';

/**
 * Formatter parity: where the project declares a formatter, a changed file comes out as that
 * formatter would leave it, provided the file was clean under the same formatter before the
 * change (so lines the change did not touch never move) or is new. Each formatter runs
 * in-process (Prettier's standalone build, gofmt and ruff's formatter from wasm).
 */
export interface ParityFormatter {
  /** What the PR body names: the formatter and where its options come from. */
  label: string;
  handles(path: string): boolean;
  /** The formatted text of an LF-terminated source, or `undefined` when the formatter refuses it. */
  format(text: string, path: string): Promise<string | undefined>;
}

/** A formatter the project declares that draftsman does not run: a configuration written as a script, or a formatter it has no build of. */
export interface UnreadableFormatter {
  unreadable: string;
  tool: string;
  /** Why, when it is not a configuration draftsman cannot evaluate. */
  why?: string;
}

export type DeclaredFormatter = ParityFormatter | UnreadableFormatter;

/**
 * Packages whose job is to format source files, by the name their ecosystem's manifests give them:
 * a new version may lay files out differently, so bumping one is more than a version change.
 */
export const FORMATTER_PACKAGES: ReadonlySet<string> = new Set([
  'prettier',
  '@biomejs/biome',
  'dprint',
  'black',
  'ruff',
  'yapf',
  'autopep8',
  'isort',
  'mvdan.cc/gofumpt',
  'com.google.googlejavaformat:google-java-format',
  'com.palantir.javaformat:palantir-java-format',
  'com.facebook:ktfmt',
  'com.pinterest:ktlint',
  'com.pinterest.ktlint:ktlint-cli',
]);

/** Files larger than this are left as the recipe wrote them (formatting costs grow with size). */
const MAX_FORMAT_BYTES = 256 * 1024;

export interface ParityContext {
  workspace: Workspace;
  /** Supplies the formatters' wasm bytes, as it supplies the grammars'. */
  loadWasm: GrammarLoader;
}

type Declare = (context: ParityContext, changed: readonly string[]) => Promise<DeclaredFormatter | undefined>;
const DECLARATIONS: readonly Declare[] = [declaredPrettier, declaredBiome, declaredGofmt, declaredPythonFormatter];

const BIOME_CONFIGS = ['biome.json', 'biome.jsonc'];
const BIOME_FILES = /\.(?:[cm]?[jt]sx?|json|jsonc|css|graphql)$/;

/**
 * Biome, declared by a biome.json: draftsman has no in-process build of it (its wasm is tens of
 * megabytes), so a change to a file Biome formats says so rather than passing silently.
 */
function declaredBiome({ workspace }: ParityContext, changed: readonly string[]): Promise<DeclaredFormatter | undefined> {
  const config = BIOME_CONFIGS.find((path) => workspace.entry(path) !== undefined);
  const touched = config !== undefined && changed.some((path) => BIOME_FILES.test(path));
  return Promise.resolve(touched ? { tool: 'Biome', unreadable: config, why: 'which draftsman does not run' } : undefined);
}

/**
 * Run a formatter on `text` keeping the file's shape: CRLF line endings and a missing final
 * newline come back as they were (formatters print LF and end with a newline).
 */
async function formatKeepingShape(formatter: ParityFormatter, path: string, text: string): Promise<string | undefined> {
  const crlf = text.includes('\r\n');
  const lf = crlf ? text.replaceAll('\r\n', '\n') : text;
  const noFinalNewline = lf.length > 0 && !lf.endsWith('\n');
  let out = await formatter.format(noFinalNewline ? `${lf}\n` : lf, path);
  if (out === undefined) return undefined;
  if (noFinalNewline && out.endsWith('\n')) out = out.slice(0, -1);
  return crlf ? out.replaceAll('\n', '\r\n') : out;
}

/**
 * The text `formatter` leaves for a changed file, or `undefined` when parity does not apply: too
 * large, refused by the formatter, unchanged, or not clean under the formatter before the change (`base`).
 */
export async function parityText(formatter: ParityFormatter, path: string, base: string | undefined, text: string): Promise<string | undefined> {
  if (text.length > MAX_FORMAT_BYTES || (base !== undefined && base.length > MAX_FORMAT_BYTES)) return undefined;
  if (base !== undefined && (await formatKeepingShape(formatter, path, base)) !== base) return undefined;
  const out = await formatKeepingShape(formatter, path, text);
  return out !== undefined && out !== text ? out : undefined;
}

/**
 * Formatter parity over the files a change touched: each file a declared formatter handles is
 * rewritten as that formatter leaves it, where parity applies. Returns the notes for the PR body
 * (which formatter, from where, which files; a configuration that could not be read).
 */
export async function applyFormatterParity(context: ParityContext, changed: readonly string[]): Promise<string[]> {
  const notes: string[] = [];
  for (const declare of DECLARATIONS) {
    const formatter = await declare(context, changed);
    if (!formatter) continue;
    if ('unreadable' in formatter) {
      notes.push(
        `${formatter.tool} is configured in ${formatter.unreadable}, ${formatter.why ?? 'which draftsman does not evaluate'}: the changed files were not reformatted`,
      );
      continue;
    }
    const done: string[] = [];
    for (const path of changed.filter((p) => formatter.handles(p) && context.workspace.entry(p) !== undefined)) {
      const base = context.workspace.baseEntry(path) ? new TextDecoder().decode(await context.workspace.readBase(path)) : undefined;
      const out = await parityText(formatter, path, base, await context.workspace.readText(path));
      if (out === undefined) continue;
      await context.workspace.write(path, new TextEncoder().encode(out));
      done.push(path);
    }
    if (done.length > 0) notes.push(`formatted as ${formatter.label} leaves them: ${done.join(', ')}`);
  }
  return notes;
}
