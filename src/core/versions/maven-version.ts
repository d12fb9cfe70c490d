/**
 * Maven's version order (`ComparableVersion`): a version is split into numbers and qualifiers at
 * `.`, `-` and every change between digits and letters; `-` and a digit/letter change open a
 * sub-list. Known qualifiers order as alpha < beta < milestone < rc (= cr) < snapshot < release
 * (= ga = final = "") < sp, any other qualifier after sp, alphabetically; `a1`/`b1`/`m1` mean
 * alpha/beta/milestone. Trailing zeros and release qualifiers do not count (`1` = `1.0.0` = `1-ga`).
 */

type Item = { kind: 'int'; value: bigint } | { kind: 'str'; value: string } | { kind: 'list'; items: Item[] };

const QUALIFIERS = ['alpha', 'beta', 'milestone', 'rc', 'snapshot', '', 'sp'];
const ALIASES: Record<string, string> = { ga: '', final: '', release: '', cr: 'rc' };
const RELEASE_INDEX = String(QUALIFIERS.indexOf(''));
/** Longer input is not a version a manifest declares; it is cut before parsing (a bound on cost). */
const MAX_VERSION_LENGTH = 256;

function comparableQualifier(q: string): string {
  const i = QUALIFIERS.indexOf(q);
  return i >= 0 ? String(i) : `${QUALIFIERS.length}-${q}`;
}

function stringItem(value: string, followedByDigit: boolean): Item {
  if (followedByDigit && value.length === 1) value = value === 'a' ? 'alpha' : value === 'b' ? 'beta' : value === 'm' ? 'milestone' : value;
  return { kind: 'str', value: ALIASES[value] ?? value };
}

function parseItem(isDigit: boolean, text: string, followedByDigit = false): Item {
  return isDigit ? { kind: 'int', value: BigInt(text) } : stringItem(text, followedByDigit);
}

function isNull(item: Item): boolean {
  if (item.kind === 'int') return item.value === 0n;
  if (item.kind === 'str') return comparableQualifier(item.value) === RELEASE_INDEX;
  return item.items.length === 0;
}

function normalize(list: Item & { kind: 'list' }): void {
  for (let i = list.items.length - 1; i >= 0; i--) {
    const last = list.items[i]!;
    if (isNull(last)) list.items.splice(i, 1);
    else if (last.kind !== 'list') break;
  }
}

/** The parsed form of a Maven version. */
export function parseMavenVersion(version: string): Item {
  const text = version.slice(0, MAX_VERSION_LENGTH).toLowerCase();
  const root: Item & { kind: 'list' } = { kind: 'list', items: [] };
  const stack: (Item & { kind: 'list' })[] = [root];
  let list = root;
  let isDigit = false;
  let start = 0;
  const open = () => {
    const next: Item & { kind: 'list' } = { kind: 'list', items: [] };
    list.items.push(next);
    list = next;
    stack.push(next);
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '.' || c === '-') {
      list.items.push(i === start ? { kind: 'int', value: 0n } : parseItem(isDigit, text.slice(start, i)));
      start = i + 1;
      if (c === '-') open();
    } else if (c >= '0' && c <= '9') {
      if (!isDigit && i > start) {
        list.items.push(stringItem(text.slice(start, i), true));
        start = i;
        open();
      }
      isDigit = true;
    } else {
      if (isDigit && i > start) {
        list.items.push(parseItem(true, text.slice(start, i)));
        start = i;
        open();
      }
      isDigit = false;
    }
  }
  if (text.length > start) list.items.push(parseItem(isDigit, text.slice(start)));
  while (stack.length > 0) normalize(stack.pop()!);
  return root;
}

function compareItem(a: Item, b: Item | undefined): number {
  if (a.kind === 'int') {
    if (!b) return a.value === 0n ? 0 : 1;
    if (b.kind === 'int') return a.value === b.value ? 0 : a.value < b.value ? -1 : 1;
    return 1;
  }
  if (a.kind === 'str') {
    if (!b) return Math.sign(compareText(comparableQualifier(a.value), RELEASE_INDEX));
    if (b.kind === 'str') return Math.sign(compareText(comparableQualifier(a.value), comparableQualifier(b.value)));
    return -1;
  }
  if (!b) return a.items.length === 0 ? 0 : compareItem(a.items[0]!, undefined);
  if (b.kind === 'int') return -1;
  if (b.kind === 'str') return 1;
  for (let i = 0; i < Math.max(a.items.length, b.items.length); i++) {
    const l = a.items[i];
    const r = b.items[i];
    const result = l ? compareItem(l, r) : r ? -compareItem(r, undefined) : 0;
    if (result !== 0) return result;
  }
  return 0;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** -1, 0 or 1 as Maven orders the two versions. */
export function compareMavenVersions(a: string, b: string): number {
  return compareItem(parseMavenVersion(a), parseMavenVersion(b));
}

/** The leading numbers of a Maven version (`5.10.2` → [5, 10, 2]), for telling a major from a minor update. */
export function mavenNumbers(version: string): number[] {
  const match = /^\d+(?:\.\d+)*/.exec(version.trim());
  return match ? match[0].split('.').map(Number) : [];
}
