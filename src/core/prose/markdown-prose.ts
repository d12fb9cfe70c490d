import type { Nodes, PhrasingContent, RootContent, Table } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';

/** Only the start of a body is read: requests are written up front, and parsing stays cheap. */
export const MAX_BODY_CHARS = 20_000;
/** Rows read from one table (a grouped update lists a few dozen at most). */
export const MAX_TABLE_ROWS = 100;
/** Sentences read from one body. */
const MAX_SENTENCES = 400;

/** One sentence of the body, and whether it stood in a list item. */
export interface BodySentence {
  source: 'body' | 'list';
  text: string;
}

/** A table cell: its text (code spans keep their backticks) and the first link or code span in it. */
export interface TableCell {
  text: string;
  lead: string | undefined;
}

export interface BodyTable {
  header: string[];
  rows: TableCell[][];
}

export interface BodyProse {
  sentences: BodySentence[];
  tables: BodyTable[];
  /** The body was cut at MAX_BODY_CHARS. */
  clipped: boolean;
  /** The parser gave up on the body (nesting too deep for its stack): nothing was read. */
  unparsed: boolean;
}

/** Lists nested deeper than this are not read (a request is not written twenty levels down). */
const MAX_DEPTH = 20;

/**
 * The prose of an issue body, parsed as GitHub Flavored Markdown: sentences of paragraphs,
 * headings and list items, and tables row by row. Code blocks, HTML, quotes and footnotes are not
 * requests and are skipped. With `botLayout`, reading stops where Dependabot and Renovate end their
 * request and start quoting release notes (a thematic break, a `<details>` block, a "Release Notes"
 * heading): those notes are full of other projects' "update X to vN" lines.
 */
export function readBodyProse(body: string, options: { botLayout: boolean }): BodyProse {
  const clipped = body.length > MAX_BODY_CHARS;
  const out: BodyProse = { sentences: [], tables: [], clipped, unparsed: false };
  let tree: ReturnType<typeof fromMarkdown>;
  try {
    tree = fromMarkdown(body.slice(0, MAX_BODY_CHARS), { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });
  } catch {
    // Thousands of nested quotes exhaust the parser's stack: such a body is not a request.
    return { ...out, unparsed: true };
  }
  for (const node of tree.children) {
    if (options.botLayout && endsBotRequest(node)) break;
    collect(node, 'body', out, 0);
  }
  out.sentences = out.sentences.slice(0, MAX_SENTENCES);
  return out;
}

function endsBotRequest(node: RootContent): boolean {
  if (node.type === 'thematicBreak') return true;
  if (node.type === 'html') return /^<details/i.test(node.value.trimStart());
  if (node.type === 'heading') return /release notes|configuration/i.test(inlineText(node.children));
  return false;
}

function collect(node: RootContent, source: BodySentence['source'], out: BodyProse, depth: number): void {
  if (depth > MAX_DEPTH) return;
  switch (node.type) {
    case 'paragraph':
    case 'heading':
      for (const text of sentencesOf(inlineText(node.children))) out.sentences.push({ source, text });
      return;
    case 'list':
      for (const item of node.children) for (const child of item.children) collect(child, 'list', out, depth + 1);
      return;
    case 'table':
      out.tables.push(tableOf(node));
      return;
    default:
      // code, html, blockquote, definitions, footnotes, thematic breaks: not a request.
      return;
  }
}

function tableOf(node: Table): BodyTable {
  const [head, ...rows] = node.children;
  return {
    header: (head?.children ?? []).map((cell) => inlineText(cell.children).trim()),
    rows: rows.slice(0, MAX_TABLE_ROWS).map((row) => row.children.map((cell) => ({ text: inlineText(cell.children).trim(), lead: leadOf(cell.children) }))),
  };
}

/** The first link text or code span of a cell (`[urllib3](…) ([source](…))` → `urllib3`). */
function leadOf(nodes: PhrasingContent[]): string | undefined {
  for (const node of nodes) {
    if (node.type === 'link') return inlineText(node.children).replace(/`/g, '').trim();
    if (node.type === 'inlineCode') return node.value.trim();
    if (node.type === 'text' && node.value.trim() !== '') return undefined;
  }
  return undefined;
}

/** The text of inline content: link texts stand for their links, code spans keep their backticks. */
export function inlineText(nodes: readonly Nodes[]): string {
  let text = '';
  for (const node of nodes) {
    if (node.type === 'text') text += node.value;
    else if (node.type === 'inlineCode') text += `\`${node.value.replace(/`/g, '')}\``;
    else if (node.type === 'break') text += '\n';
    // Images have no children: a badge adds no words.
    else if ('children' in node) text += inlineText(node.children as Nodes[]);
  }
  return text;
}

/**
 * Sentences of a paragraph: split at line ends and at `. `, `! `, `? `, `; ` (a version's dots
 * have no space after them). Code spans are kept whole.
 */
export function sentencesOf(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  let inCode = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '`') inCode = !inCode;
    const stop = ch === '\n' || (!inCode && '.!?;'.includes(ch) && (i + 1 === text.length || text[i + 1] === ' '));
    if (!stop) continue;
    pushSentence(out, text.slice(start, i + 1));
    start = i + 1;
    inCode = false;
  }
  pushSentence(out, text.slice(start));
  return out;
}

function pushSentence(out: string[], sentence: string): void {
  const trimmed = sentence.trim();
  if (trimmed !== '') out.push(trimmed);
}
