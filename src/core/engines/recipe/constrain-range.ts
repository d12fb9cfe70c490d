import * as pep440 from '@renovatebot/pep440';
import semver from 'semver';
import { compareVersions, type VersionScheme } from '../../versions/versions.js';

/*
 * Version constraints for constrain-dependency: a step's range (neutral or in an ecosystem's own
 * syntax), a manifest's declared constraint read as comparators, and the new constraint written
 * in the manifest's own syntax. Inputs are bounded by the step schema (200 characters) and by
 * MAX_DECLARED for what a manifest declares; every regular expression here is linear.
 */

export type Op = '<' | '<=' | '>' | '>=' | '==' | '!=';
export interface Comparator {
  op: Op;
  version: string;
}

/** The constraint syntaxes: PEP 440 specifiers, Poetry's, npm's, Cargo's, and Maven's range notation (Maven and Gradle). */
export type RangeFlavour = 'pep440' | 'poetry' | 'npm' | 'cargo' | 'maven';

const NAMES: Record<RangeFlavour, string> = { pep440: 'PEP 440', poetry: 'Poetry', npm: 'npm', cargo: 'Cargo', maven: 'Maven' };
const SCHEMES: Record<RangeFlavour, VersionScheme> = { pep440: 'pep440', poetry: 'pep440', npm: 'semver', cargo: 'semver', maven: 'maven' };

/** Longer declared text is not a constraint a manifest writes: left alone (a bound on cost). */
const MAX_DECLARED = 256;

/** A step's range: neutral comparators (written in each manifest's syntax) or an ecosystem's own range text. */
export type RangeInput = { kind: 'neutral'; comparators: Comparator[] } | { kind: 'native'; text: string };

const CLAUSE = /^(<=|>=|==|!=|<|>|=)\s*v?(\d[\w.+-]*)$/;

/** `<3`, `>=1.26,<3`, `>=1.26 <3`, `==2.31.0`, `=2.31.0`: comparators; anything else is an ecosystem's own range. */
export function parseRangeInput(range: string): RangeInput {
  const text = range.trim();
  const clauses = text.split(/\s*,\s*|\s+(?=[<>=!])/);
  const comparators: Comparator[] = [];
  for (const clause of clauses) {
    const m = CLAUSE.exec(clause);
    if (!m) return { kind: 'native', text };
    comparators.push({ op: m[1] === '=' ? '==' : (m[1] as Op), version: m[2] });
  }
  return { kind: 'neutral', comparators };
}

/** The leading release numbers of a version (`1.4.2rc1` → [1, 4, 2]). */
function release(version: string): number[] {
  const m = /^\d+(?:\.\d+)*/.exec(version);
  return m ? m[0].split('.').map(Number) : [];
}

/** The version after the prefix `numbers[0..length)`: `[1, 4]` → `1.5`. */
function next(numbers: number[], length: number): string {
  const kept = numbers.slice(0, Math.max(1, length));
  while (kept.length < Math.max(1, length)) kept.push(0);
  kept[kept.length - 1] += 1;
  return kept.join('.');
}

/** `^X`: below the next change of the first non-zero number (npm, Cargo, Poetry). */
function caretUpper(version: string): string {
  const n = release(version);
  const first = n.findIndex((x) => x !== 0);
  return next(n, first < 0 ? n.length : first + 1);
}

/** `~X`: below the next minor (`~1.2.3`, `~1.2`), or the next major for `~1`. */
function tildeUpper(version: string): string {
  const n = release(version);
  return next(n, n.length >= 2 ? 2 : 1);
}

/** `~=X.Y.Z` (PEP 440): below the next change of the second-to-last number. */
function compatibleUpper(version: string): string {
  const n = release(version);
  return next(n, n.length - 1);
}

type Reader = (clause: string) => Comparator[] | undefined;

/** One clause in the operator forms the four text syntaxes share; `bare` says what a bare version means. */
function readClause(clause: string, bare: 'exact' | 'caret' | 'none'): Comparator[] | undefined {
  const c = clause.trim();
  if (c === '*' || c === '') return [];
  const m = /^(\^|~=|~|===|==|!=|<=|>=|<|>|=)?\s*v?(\d[\w.+!-]*)(\.\*)?$/.exec(c);
  if (!m) return undefined;
  const [, op, version, wildcard] = m;
  if (wildcard)
    return op === '==' || op === undefined
      ? [
          { op: '>=', version },
          { op: '<', version: next(release(version), release(version).length) },
        ]
      : undefined;
  if (op === '^' || (op === undefined && bare === 'caret'))
    return [
      { op: '>=', version },
      { op: '<', version: caretUpper(version) },
    ];
  if (op === '~')
    return [
      { op: '>=', version },
      { op: '<', version: tildeUpper(version) },
    ];
  if (op === '~=')
    return release(version).length >= 2
      ? [
          { op: '>=', version },
          { op: '<', version: compatibleUpper(version) },
        ]
      : undefined;
  if (op === undefined) return bare === 'exact' ? [{ op: '==', version }] : undefined;
  return [{ op: op === '=' || op === '===' ? '==' : (op as Op), version }];
}

function readClauses(text: string, separator: RegExp, read: Reader): Comparator[] | undefined {
  if (text.trim() === '') return [];
  const out: Comparator[] = [];
  for (const clause of text.trim().split(separator)) {
    const one = read(clause);
    if (!one) return undefined;
    out.push(...one);
  }
  return out;
}

/** One interval of Maven's range notation. */
interface Interval {
  lower?: string;
  lowerInclusive: boolean;
  upper?: string;
  upperInclusive: boolean;
}

/** Maven's version range notation (`[1.0,2.0)`, `(,3)`, `[1.5]`, unions `[1,2),[3,)`); undefined when malformed. */
export function parseMavenRange(text: string): Interval[] | undefined {
  const intervals: Interval[] = [];
  const one = /\s*([[(])\s*([^,[\]()\s]*)\s*(?:(,)\s*([^,[\]()\s]*)\s*)?([\])])\s*(,|$)/y;
  let at = 0;
  while (at < text.length) {
    one.lastIndex = at;
    const m = one.exec(text);
    if (!m) return undefined;
    const [, open, lower, comma, upper, close, more] = m;
    if (!comma) {
      // `[1.5]` is exactly 1.5; `(1.5)` and `[1.5)` mean nothing.
      if (open !== '[' || close !== ']' || !lower) return undefined;
      intervals.push({ lower, lowerInclusive: true, upper: lower, upperInclusive: true });
    } else {
      if ((open === '[' && !lower) || (close === ']' && !upper)) return undefined;
      intervals.push({ lower: lower || undefined, lowerInclusive: open === '[', upper: upper || undefined, upperInclusive: close === ']' });
    }
    at = m.index + m[0].length;
    if (!more && at < text.length) return undefined;
    if (more && at >= text.length) return undefined;
  }
  return intervals.length ? intervals : undefined;
}

function readMaven(text: string): Comparator[] | undefined {
  const t = text.trim();
  // A literal is Maven's soft requirement: that version or, when another wins mediation, any.
  if (!/^[[(]/.test(t)) return /^\d[\w.+-]*$/.test(t) ? [{ op: '>=', version: t }] : undefined;
  const intervals = parseMavenRange(t);
  if (!intervals || intervals.length !== 1) return undefined;
  const [i] = intervals;
  if (i.lower !== undefined && i.lower === i.upper) return [{ op: '==', version: i.lower }];
  const out: Comparator[] = [];
  if (i.lower !== undefined) out.push({ op: i.lowerInclusive ? '>=' : '>', version: i.lower });
  if (i.upper !== undefined) out.push({ op: i.upperInclusive ? '<=' : '<', version: i.upper });
  return out;
}

/** npm: space-separated clauses; other range forms (`||`, hyphen and x-ranges) through `semver`'s own reading. */
function readNpm(text: string): Comparator[] | undefined {
  const own = readClauses(text, /\s+(?=[<>=^~\d])/, (c) => readClause(c, 'exact'));
  if (own) return own;
  if (semver.validRange(text, { loose: true }) === null) return undefined;
  const sets = new semver.Range(text, { loose: true }).set;
  if (sets.length !== 1) {
    // A union: only its lowest version counts (the declared minimum).
    const min = semver.minVersion(text, { loose: true });
    return min ? [{ op: '>=', version: min.version }] : undefined;
  }
  return (
    sets[0]
      // `*` reads as one comparator without a version: no bound.
      .filter((c) => c.value !== '')
      .map((c) => ({ op: (c.operator === '' || c.operator === '=' ? '==' : c.operator) as Op, version: c.semver.version }))
  );
}

/** A manifest's declared constraint as comparators; undefined when it is not a constraint of that syntax draftsman reads. */
export function readDeclared(flavour: RangeFlavour, text: string): Comparator[] | undefined {
  if (text.length > MAX_DECLARED) return undefined;
  switch (flavour) {
    case 'pep440':
      return readClauses(text, /\s*,\s*/, (c) => readClause(c, 'none'));
    case 'poetry':
      return /\|/.test(text) ? undefined : readClauses(text, /\s*,\s*/, (c) => readClause(c, 'exact'));
    case 'cargo':
      return readClauses(text, /\s*,\s*/, (c) => readClause(c, 'caret'));
    case 'npm':
      return readNpm(text);
    case 'maven':
      return readMaven(text);
  }
}

/** Whether `text` is a valid range in the syntax (an ecosystem's own range passed through). */
export function validNative(flavour: RangeFlavour, text: string): boolean {
  switch (flavour) {
    case 'pep440':
      return pep440.validRange(text) && readDeclared(flavour, text) !== undefined;
    case 'npm':
      return semver.validRange(text) !== null;
    case 'maven':
      return /^[[(]/.test(text.trim()) && parseMavenRange(text.trim()) !== undefined;
    default:
      return readDeclared(flavour, text) !== undefined;
  }
}

const isUpper = (c: Comparator) => c.op === '<' || c.op === '<=';
const isLower = (c: Comparator) => c.op === '>' || c.op === '>=' || c.op === '==';

interface Bound {
  version: string;
  inclusive: boolean;
}

/** The tightest bound on one side (`lower`: the highest minimum; `upper`: the lowest maximum). */
function bound(flavour: RangeFlavour, comparators: readonly Comparator[], side: 'lower' | 'upper'): Bound | undefined {
  let best: Bound | undefined;
  for (const c of comparators) {
    if (side === 'lower' ? !isLower(c) : !isUpper(c) && c.op !== '==') continue;
    const candidate = { version: c.version, inclusive: c.op !== '<' && c.op !== '>' };
    const order = best ? compareVersions(SCHEMES[flavour], candidate.version, best.version) : undefined;
    if (!best || (order !== undefined && (side === 'lower' ? order > 0 : order < 0))) best = candidate;
  }
  return best;
}

/** Render comparators in the syntax; undefined when it cannot say them (`!=` outside Python, several bounds in Maven). */
function render(flavour: RangeFlavour, comparators: readonly Comparator[], current: string): string | undefined {
  const pin = comparators.length === 1 && comparators[0].op === '==' ? comparators[0].version : undefined;
  const spaced = /,\s/.test(current);
  switch (flavour) {
    case 'pep440':
      return comparators.map((c) => `${c.op}${c.version}`).join(spaced ? ', ' : ',');
    case 'poetry':
      // Poetry writes an exact version bare, as `poetry add name==X` does.
      return pin ?? comparators.map((c) => `${c.op}${c.version}`).join(spaced ? ', ' : ',');
    case 'npm':
      if (comparators.some((c) => c.op === '!=')) return undefined;
      return pin ?? comparators.map((c) => `${c.op === '==' ? '=' : c.op}${c.version}`).join(' ');
    case 'cargo':
      if (comparators.some((c) => c.op === '!=')) return undefined;
      return comparators.map((c) => `${c.op === '==' ? '=' : c.op}${c.version}`).join(/,\S/.test(current) ? ',' : ', ');
    case 'maven':
      return renderMaven(comparators, current, pin);
  }
}

function renderMaven(comparators: readonly Comparator[], current: string, pin: string | undefined): string | undefined {
  // A pin keeps a literal project a literal (the soft requirement Maven poms write), a range a range.
  if (pin !== undefined) return /^\s*[[(]/.test(current) ? `[${pin}]` : pin;
  const lowers = comparators.filter((c) => c.op === '>' || c.op === '>=');
  const uppers = comparators.filter(isUpper);
  if (lowers.length > 1 || uppers.length > 1 || lowers.length + uppers.length !== comparators.length) return undefined;
  const [lower] = lowers;
  const [upper] = uppers;
  return `${lower?.op === '>=' ? '[' : '('}${lower?.version ?? ''},${upper?.version ?? ''}${upper?.op === '<=' ? ']' : ')'}`;
}

export type Constrained = { text: string } | { note: string };

/**
 * The new constraint of one declaration. A neutral cap (only `<`/`<=`) keeps what the declared
 * constraint says below it (`>=1.26` + `<3` → `>=1.26,<3`; `^1.2.0` + `<3` → `>=1.2.0 <3`); any
 * other range replaces it. A range whose upper bound lies below the declared minimum is a
 * downgrade: refused unless `allowDowngrade`.
 */
export function constrainDeclared(
  flavour: RangeFlavour,
  current: string,
  input: RangeInput,
  options: { label: string; allowDowngrade?: boolean },
): Constrained {
  const declared = readDeclared(flavour, current);
  if (!declared) return { note: `${options.label} is declared as "${current}", not a ${NAMES[flavour]} constraint draftsman reads; left alone` };
  let text: string | undefined;
  let wanted: Comparator[] | undefined;
  if (input.kind === 'neutral') {
    const capOnly = input.comparators.every(isUpper);
    const kept = capOnly ? declared.filter((c) => !isUpper(c)).map((c): Comparator => (c.op === '==' ? { op: '>=', version: c.version } : c)) : [];
    wanted = [...kept, ...input.comparators];
    text = render(flavour, wanted, current);
    if (text === undefined) return { note: `${options.label}: the range cannot be written in ${NAMES[flavour]} syntax; left alone` };
  } else {
    if (!validNative(flavour, input.text)) return { note: `${options.label}: "${input.text}" is not a valid ${NAMES[flavour]} range; left alone` };
    text = input.text;
    wanted = readDeclared(flavour, text) ?? [];
  }
  const downgrade = isDowngrade(flavour, declared, wanted);
  if (downgrade && !options.allowDowngrade) {
    return {
      note: `${options.label}: "${text}" admits no version from the declared minimum ${downgrade} ("${current}") up: a downgrade; left alone (add \`allowDowngrade: true\` to the step to apply it)`,
    };
  }
  return { text };
}

/** The declared minimum, when the new constraint's upper bound excludes it and everything above. */
function isDowngrade(flavour: RangeFlavour, declared: readonly Comparator[], wanted: readonly Comparator[]): string | undefined {
  const min = bound(flavour, declared, 'lower');
  const max = bound(flavour, wanted, 'upper');
  if (!min || !max) return undefined;
  const order = compareVersions(SCHEMES[flavour], max.version, min.version);
  if (order === undefined) return undefined;
  return order < 0 || (order === 0 && !max.inclusive) ? min.version : undefined;
}
