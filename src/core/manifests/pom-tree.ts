/** One element of a pom with the offsets a version bump needs (an XML parser keeps none). */
export interface PomElement {
  name: string;
  /** Offset of the opening `<`. */
  start: number;
  children: PomElement[];
  /** The element's own text (comments dropped, CDATA unwrapped, entities decoded), trimmed. */
  text: string;
  /** Offset of the first non-blank character of that text; the opening tag's when there is none. */
  textStart: number;
}

interface OpenElement extends PomElement {
  parts: string[];
}

/** Deeper than any real pom; the scanner stops there rather than keep an unbounded stack. */
const MAX_DEPTH = 200;
const MAX_ELEMENTS = 200_000;

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function decode(text: string): string {
  return text.replace(/&(lt|gt|amp|quot|apos|#\d{1,7}|#x[0-9a-fA-F]{1,6});/g, (whole, entity: string) => {
    if (!entity.startsWith('#')) return ENTITIES[entity];
    const code = entity[1] === 'x' ? parseInt(entity.slice(2), 16) : parseInt(entity.slice(1), 10);
    return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

/** The `>` that ends the tag opened at `lt`, skipping quoted attribute values. */
function tagEnd(text: string, lt: number): number {
  let quote = '';
  for (let i = lt + 1; i < text.length; i++) {
    const ch = text[i];
    if (quote) {
      if (ch === quote) quote = '';
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '>') return i;
  }
  return -1;
}

/**
 * The element tree of a pom, read by one pass over its tags (each `indexOf` starts where the
 * previous stopped, so the scan is linear). Throws `line N: …` where the text stops being XML it
 * can follow: an unclosed comment, a tag that never ends, a closing tag that does not match.
 */
export function pomTree(text: string, lineOf: (offset: number) => number): PomElement {
  const root: OpenElement = { name: '#document', start: 0, children: [], text: '', textStart: -1, parts: [] };
  const stack: OpenElement[] = [root];
  const fail = (offset: number, message: string): never => {
    throw new Error(`line ${lineOf(offset)}: ${message}`);
  };
  const addText = (from: number, to: number): void => {
    if (to <= from) return;
    const top = stack[stack.length - 1];
    top.parts.push(text.slice(from, to));
    if (top.textStart < 0) {
      const blank = /^\s*/.exec(text.slice(from, to))![0].length;
      if (from + blank < to) top.textStart = from + blank;
    }
  };
  const skipTo = (from: number, marker: string, what: string): number => {
    const end = text.indexOf(marker, from);
    return end < 0 ? fail(from, `unterminated ${what}`) : end;
  };
  let count = 0;
  let i = 0;
  for (;;) {
    const lt = text.indexOf('<', i);
    if (lt < 0) break;
    addText(i, lt);
    if (text.startsWith('<!--', lt)) i = skipTo(lt + 4, '-->', 'comment') + 3;
    else if (text.startsWith('<![CDATA[', lt)) {
      const end = skipTo(lt + 9, ']]>', 'CDATA section');
      addText(lt + 9, end);
      i = end + 3;
    } else if (text.startsWith('<?', lt)) i = skipTo(lt + 2, '?>', 'processing instruction') + 2;
    else if (text.startsWith('<!', lt)) i = skipTo(lt + 2, '>', 'declaration') + 1;
    else {
      const gt = tagEnd(text, lt);
      if (gt < 0) fail(lt, 'a tag that never ends');
      const body = text.slice(lt + 1, gt);
      const m = /^(\/?)([^\s/>]+)/.exec(body) ?? fail(lt, 'a malformed tag');
      if (++count > MAX_ELEMENTS) fail(lt, 'too many elements');
      if (m[1]) closeElement(stack, m[2], lt, fail);
      else {
        const el: OpenElement = { name: m[2], start: lt, children: [], text: '', textStart: -1, parts: [] };
        stack[stack.length - 1].children.push(el);
        if (body.endsWith('/')) finish(el);
        else if (stack.push(el) > MAX_DEPTH) fail(lt, 'elements nested too deeply');
      }
      i = gt + 1;
    }
  }
  addText(i, text.length);
  if (stack.length > 1) fail(stack[stack.length - 1].start, `<${stack[stack.length - 1].name}> is never closed`);
  return finish(root);
}

function closeElement(stack: OpenElement[], name: string, at: number, fail: (offset: number, message: string) => never): void {
  const top = stack[stack.length - 1];
  if (stack.length === 1) fail(at, `</${name}> closes nothing`);
  if (top.name !== name) fail(at, `</${name}> closes <${top.name}>`);
  stack.pop();
  finish(top);
}

function finish(el: OpenElement): PomElement {
  el.text = el.children.length === 0 ? decode(el.parts.join('')).trim() : '';
  if (el.textStart < 0) el.textStart = el.start;
  el.parts = [];
  return el;
}

/** The first child element of that name. */
export const childOf = (el: PomElement | undefined, name: string): PomElement | undefined => el?.children.find((c) => c.name === name);

/** Every child element of that name, in document order. */
export const childrenOf = (el: PomElement | undefined, name: string): PomElement[] => el?.children.filter((c) => c.name === name) ?? [];

/** The element reached through child names, first match at each step. */
export function pathOf(el: PomElement | undefined, ...names: string[]): PomElement | undefined {
  let at = el;
  for (const name of names) at = childOf(at, name);
  return at;
}

/** A leaf child's text; undefined when the child is absent. */
export const leafText = (el: PomElement | undefined, name: string): string | undefined => childOf(el, name)?.text;
