/** A fenced code block of a Markdown document, by 0-based line index. */
export interface FencedBlock {
  /** First word of the info string (`agent` in ```` ```agent ````). */
  infoWord: string;
  openLine: number;
  /** Undefined when the document ends before the closing fence. */
  closeLine: number | undefined;
  /** Spaces before the opening fence; removed from content lines, as CommonMark does. */
  indent: number;
}

const OPEN = /^( {0,3})(`{3,}|~{3,})(.*)$/;
const CLOSE = /^ {0,3}(`{3,}|~{3,})[ \t]*$/;

/** Split on LF, CRLF or CR, the way GitHub bodies arrive. */
export function splitLines(text: string): string[] {
  return text.split(/\r\n|\r|\n/);
}

/**
 * Top-level fenced code blocks (CommonMark rules: up to three spaces of indentation, three or
 * more backticks or tildes, closed by a fence of the same character at least as long). One pass,
 * one anchored regex per line, so the cost is linear in the document.
 */
export function findFencedBlocks(lines: readonly string[]): FencedBlock[] {
  const blocks: FencedBlock[] = [];
  let open: { fence: string; block: FencedBlock } | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (open) {
      const close = CLOSE.exec(line);
      if (close && close[1][0] === open.fence[0] && close[1].length >= open.fence.length) {
        open.block.closeLine = i;
        open = undefined;
      }
      continue;
    }
    // Cheap pre-check: a fence starts with a backtick or tilde after at most three spaces.
    let k = 0;
    while (k < 3 && line.charCodeAt(k) === 32) k++;
    if (line[k] !== '`' && line[k] !== '~') continue;
    const start = OPEN.exec(line);
    if (!start) continue;
    const [, indent, fence, info] = start;
    if (fence[0] === '`' && info.includes('`')) continue;
    const block: FencedBlock = { infoWord: firstWord(info), openLine: i, closeLine: undefined, indent: indent.length };
    blocks.push(block);
    open = { fence, block };
  }
  return blocks;
}

/** Content lines of a block with its indentation removed (at most `indent` spaces each). */
export function blockContent(lines: readonly string[], block: FencedBlock): string[] {
  const end = block.closeLine ?? lines.length;
  const out: string[] = [];
  for (let i = block.openLine + 1; i < end; i++) {
    let line = lines[i];
    let removed = 0;
    while (removed < block.indent && line.startsWith(' ')) {
      line = line.slice(1);
      removed++;
    }
    out.push(line);
  }
  return out;
}

function firstWord(info: string): string {
  const trimmed = info.trim();
  const space = trimmed.search(/\s/);
  return space < 0 ? trimmed : trimmed.slice(0, space);
}
