import { redactSecrets, type SecretPathRules } from '../secrets/secret-scan.js';
import type { Workspace } from '../workspace/workspace.js';
import { looksBinary } from '../paths/path-classes.js';

/**
 * The files a repository keeps for coding agents, at the root, in the order they are shown. The
 * map lists them among the important files and the model prompt carries their text: one list.
 */
export const ROOT_INSTRUCTION_FILES = ['AGENTS.md', 'CLAUDE.md', '.github/copilot-instructions.md'] as const;

/** The instruction file that may also sit in a subdirectory and then speaks for that subtree. */
export const NESTED_INSTRUCTION_FILE = 'AGENTS.md';

/** True for a root instruction file, or an `AGENTS.md` at any depth. */
export function isInstructionFile(path: string): boolean {
  return (ROOT_INSTRUCTION_FILES as readonly string[]).includes(path) || path.endsWith(`/${NESTED_INSTRUCTION_FILE}`);
}

export interface InstructionLimits {
  /** Characters kept of one file; the rest is cut with a note. */
  maxCharsPerFile: number;
  /** Characters kept over every file; files past it are skipped with a note. */
  maxTotalChars: number;
  /** A file larger than this is not instructions a person wrote for an agent: skipped unread past it. */
  maxFileBytes: number;
  /** Nested `AGENTS.md` files shown (nearest first); further ones are skipped with a note. */
  maxNested: number;
}

export const DEFAULT_INSTRUCTION_LIMITS: InstructionLimits = {
  maxCharsPerFile: 8 * 1024,
  maxTotalChars: 16 * 1024,
  maxFileBytes: 256 * 1024,
  maxNested: 4,
};

export interface InstructionFile {
  path: string;
  /** Redacted, and cut to the per-file bound. */
  text: string;
  truncated: boolean;
  /** Characters of the whole (redacted) file, before the cut. */
  chars: number;
  /** Secrets replaced in the text. */
  redactions: number;
}

export type InstructionSkipReason = 'symlink' | 'not a regular file' | 'binary' | 'oversized' | 'unreadable' | 'nested bound reached' | 'total bound reached';

export interface InstructionFiles {
  files: InstructionFile[];
  skipped: { path: string; reason: InstructionSkipReason }[];
}

/** Changed paths whose directories are searched for nested `AGENTS.md` files. */
const MAX_PATHS_SEARCHED = 64;

/**
 * Where instruction files may sit for changes to `paths`: each nested `AGENTS.md` on the
 * way from a path's directory up to the root (nearest first, deduplicated; directories of the
 * first `MAX_PATHS_SEARCHED` paths), then the root files in their fixed order.
 */
export function instructionFileCandidates(paths: readonly string[]): string[] {
  const nested: string[] = [];
  for (const path of paths.slice(0, MAX_PATHS_SEARCHED)) {
    const parts = path.split('/').slice(0, -1);
    for (let i = parts.length; i > 0; i--) {
      const candidate = `${parts.slice(0, i).join('/')}/${NESTED_INSTRUCTION_FILE}`;
      if (!nested.includes(candidate)) nested.push(candidate);
    }
  }
  return [...nested, ...ROOT_INSTRUCTION_FILES];
}

const decoder = new TextDecoder('utf-8');

/**
 * The instruction files of the base tree that apply to changes to `paths`. Read from the base
 * commit, never from the workspace overlay, so an edit made during the run cannot instruct the
 * model. A symlink, a gitlink, a binary or oversized file is skipped with its reason and never
 * followed; text is redacted, each file is cut to its bound and the total is bounded.
 */
export async function loadInstructionFiles(
  workspace: Workspace,
  paths: readonly string[],
  /** The run's path rules: each file is redacted as the kind of file it is. */
  rules: SecretPathRules,
  limits: InstructionLimits = DEFAULT_INSTRUCTION_LIMITS,
  /** Sizes known without reading (e.g. the map's large files): an oversized file is then never read. */
  knownSize: (path: string) => number | undefined = () => undefined,
): Promise<InstructionFiles> {
  const out: InstructionFiles = { files: [], skipped: [] };
  let total = 0;
  let nested = 0;
  for (const path of instructionFileCandidates(paths)) {
    const entry = workspace.baseEntry(path);
    if (!entry) continue;
    if (!(ROOT_INSTRUCTION_FILES as readonly string[]).includes(path) && ++nested > limits.maxNested) {
      out.skipped.push({ path, reason: 'nested bound reached' });
      continue;
    }
    if (entry.mode === '120000') {
      out.skipped.push({ path, reason: 'symlink' });
      continue;
    }
    if (entry.mode !== '100644' && entry.mode !== '100755') {
      out.skipped.push({ path, reason: 'not a regular file' });
      continue;
    }
    if (total >= limits.maxTotalChars) {
      out.skipped.push({ path, reason: 'total bound reached' });
      continue;
    }
    if ((knownSize(path) ?? 0) > limits.maxFileBytes) {
      out.skipped.push({ path, reason: 'oversized' });
      continue;
    }
    let bytes: Uint8Array;
    try {
      bytes = await workspace.readBase(path);
    } catch {
      out.skipped.push({ path, reason: 'unreadable' });
      continue;
    }
    if (bytes.length > limits.maxFileBytes) {
      out.skipped.push({ path, reason: 'oversized' });
      continue;
    }
    if (looksBinary(bytes)) {
      out.skipped.push({ path, reason: 'binary' });
      continue;
    }
    const room = Math.min(limits.maxCharsPerFile, limits.maxTotalChars - total);
    const whole = decoder.decode(bytes);
    // Redact before cutting, so a cut never splits a secret into a shape the rules miss.
    const redacted = redactSecrets(whole, { path, rules });
    const truncated = redacted.text.length > room;
    const text = truncated ? redacted.text.slice(0, room) : redacted.text;
    total += text.length;
    out.files.push({ path, text, truncated, chars: redacted.text.length, redactions: redacted.findings.length });
  }
  return out;
}
