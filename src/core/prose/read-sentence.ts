import type { CandidateStep } from './prose-reading.js';
import { WHY } from './prose-why.js';
import { bareVersion, isMajorOnly, isPackageName, isRange, isVersion, looksLikeAction, lower, words, type Word } from './prose-words.js';
import { readMigrate, readRemove, readRename, readReplace, readUrlPair } from './read-edits.js';
import { miss, type Finding, type SentenceResult } from './sentence-result.js';

export type { Finding, SentenceResult } from './sentence-result.js';

const BUMP_VERBS = new Set(['bump', 'bumps', 'update', 'updates', 'upgrade', 'upgrades', 'raise', 'downgrade']);
const CONSTRAIN_VERBS = new Set(['keep', 'hold', 'pin', 'cap', 'limit', 'restrict', 'constrain']);
/** Words before a package naming its kind, as Renovate and people write them. */
const KIND_WORDS = new Set(['dependency', 'module', 'plugin', 'crate', 'gem', 'package', 'library', 'lib', 'dep']);
/** Words that stand for many packages at once. */
const MANY_WORDS = new Set(['dependencies', 'deps', 'everything', 'packages', 'versions', 'libraries', 'modules', 'all', 'plugins', 'crates', 'gems']);
/** Words before a verb that keep it at the start of a request ("please bump…", "we need to bump…"). */
const LEAD_INS = new Set([
  'please',
  'we',
  'should',
  'need',
  'needs',
  'to',
  "let's",
  'lets',
  'must',
  'can',
  'could',
  'you',
  'kindly',
  'also',
  'then',
  'and',
  "i'd",
  'like',
  'want',
  'i',
  'just',
  'now',
  'todo',
]);
const ARROWS = new Set(['to', '->', '→', '=>']);

/** A title's prefixes that are not words of the request: `chore(deps):`, `[Snyk]`, `:arrow_up:`, `ABC-12 -`. */
const TITLE_PREFIX =
  /^(?:\[[^\]\n]{1,40}\]\s*){0,3}(?:[A-Z][A-Z0-9]{1,10}-\d{1,7}\s*[-:]\s*)?(?:[A-Za-z][\w-]{0,30}(?:\([^()\n]{0,40}\))?!?:\s+)?(?::[a-z_]{1,30}:\s*)?/;

export function stripTitlePrefix(title: string): string {
  return title.replace(TITLE_PREFIX, '');
}

/** Read the requests of one sentence. */
export function readSentence(sentence: string): SentenceResult {
  const w = words(sentence);
  const result: SentenceResult = { found: [] };
  readUrlPair(w, result);
  for (let i = 0; i < w.length; i++) {
    if (!startsClause(w, i)) continue;
    const verb = lower(w[i]);
    if (BUMP_VERBS.has(verb)) readBump(w, i, result);
    else if (CONSTRAIN_VERBS.has(verb)) readConstraint(w, i, result);
    else if (verb === 'rename') readRename(w, i, result);
    else if (verb === 'replace') readReplace(w, i, result);
    else if (verb === 'migrate') readMigrate(w, i, result);
    else if (verb === 'remove' || verb === 'drop') readRemove(w, i, result);
  }
  return result;
}

function startsClause(w: Word[], i: number): boolean {
  if (i === 0) return true;
  const before = w[i - 1];
  return Boolean(before.pause) || LEAD_INS.has(lower(before));
}

/** `the`, then an optional kind word (`dependency`, `rust crate`, `docker image`): where the package name starts. */
function skipArticles(w: Word[], j: number): { j: number; kind?: string } {
  if (lower(w[j]) === 'the') j++;
  if (lower(w[j]) === 'rust' && lower(w[j + 1]) === 'crate') return { j: j + 2, kind: 'crate' };
  if (lower(w[j]) === 'docker' && lower(w[j + 1]) === 'image') return { j: j + 2, kind: 'image' };
  const word = lower(w[j]);
  if (KIND_WORDS.has(word) && w[j + 1] && isPackageName(w[j + 1].text)) return { j: j + 1, kind: word };
  return { j };
}

interface Target {
  to?: string;
  from?: string;
  end: number;
}

/** `[from A] to B` after a package, with `version` and `v` filler allowed. */
function readTarget(w: Word[], j: number): Target {
  const out: Target = { end: j };
  if (lower(w[j]) === 'version') j++;
  if (lower(w[j]) === 'from' && w[j + 1] && versionLike(w[j + 1].text)) {
    out.from = w[j + 1].text;
    j += 2;
  }
  if (!ARROWS.has(lower(w[j]) || w[j]?.text)) return out;
  j++;
  if (lower(w[j]) === 'version' || lower(w[j]) === 'v') j++;
  if (w[j] && versionLike(w[j].text) && (w[j].pause || endsRequest(w[j + 1]))) return { ...out, to: w[j].text, end: j + 1 };
  return out;
}

/** Words that may follow a request's version; any other lower-case word ("to 2024 standards") makes it no version. */
const AFTER_VERSION = new Set([
  'and',
  'in',
  'for',
  'because',
  'to',
  'since',
  'as',
  'so',
  'which',
  'that',
  'until',
  'or',
  'on',
  'with',
  'across',
  'please',
  'now',
  'asap',
  'major',
  'minor',
  'patch',
  'fixes',
  'fix',
  'due',
  '-',
  '–',
  '—',
  '&',
]);

function endsRequest(next: Word | undefined): boolean {
  if (!next || next.code) return true;
  return AFTER_VERSION.has(next.text.toLowerCase()) || !/^[a-z]+$/.test(next.text);
}

const versionLike = (text: string): boolean => isVersion(text) || isRange(text);

/** Renovate's words after a package: `action`, `monorepo`, `packages`, `docker tag`, `digest`. */
function readSuffix(w: Word[], j: number): { j: number; suffix?: string } {
  const word = lower(w[j]);
  if (word === 'docker' && lower(w[j + 1]) === 'tag') return { j: j + 2, suffix: 'image' };
  if (['action', 'monorepo', 'packages', 'group', 'digest', 'requirement'].includes(word)) return { j: j + 1, suffix: word };
  return { j };
}

function readBump(w: Word[], i: number, result: SentenceResult): void {
  const verb = lower(w[i]);
  const { j: at, kind } = skipArticles(w, i + 1);
  const first = w[at];
  if (lower(first) === 'to' && readCoordinateTarget(w[at + 1], result)) return;
  if (!first || !isPackageName(first.text)) return missPackage(w, at, result);
  const { j: afterSuffix, suffix } = readSuffix(w, at + 1);
  if (suffix === 'monorepo' && readMonorepo(first, readTarget(w, afterSuffix), result)) return;
  if (suffix === 'monorepo' || suffix === 'packages' || suffix === 'group') {
    result.group = true;
    if (suffix === 'group' && verb.startsWith('bump')) result.bot ??= 'dependabot';
    return;
  }
  if (refusedSuffix(kind, suffix, result)) return;
  const target = readTarget(w, afterSuffix);
  if (!target.to) return missVersion(w, at, result);
  const bot = botOf(verb, kind, suffix, target);
  const action = suffix === 'action' ? 'named' : bot === 'dependabot' && looksLikeAction(first.text) ? 'likely' : undefined;
  const paths = directoryOf(w, target.end);
  result.found.push(bumpFinding(first.text, target, { bot, action, paths, downgrade: verb === 'downgrade' }));
  if (bot) result.bot ??= bot;
  readMoreBumps(w, target.end, result, bot);
}

/** Image tags and digests: words a bump may carry that no recipe edits. */
function refusedSuffix(kind: string | undefined, suffix: string | undefined, result: SentenceResult): boolean {
  if (kind === 'image' || suffix === 'image') miss(result, WHY.image);
  else if (suffix === 'digest') miss(result, WHY.digest);
  else return false;
  return true;
}

/** Renovate's "Update ksp monorepo to v2.3.10": the group's name, as the catalog's version key may spell it. */
function readMonorepo(name: Word, target: Target, result: SentenceResult): boolean {
  if (!target.to) return false;
  result.found.push(bumpFinding(name.text, target, { bot: 'renovate' }));
  result.bot ??= 'renovate';
  return true;
}

/** `update to \`com.acme:lib:1.2.3\``: a Maven coordinate that carries its version. */
function readCoordinateTarget(word: Word | undefined, result: SentenceResult): boolean {
  const parts = word?.text.split(':') ?? [];
  if (parts.length !== 3 || !word || !isPackageName(`${parts[0]}:${parts[1]}`) || !isVersion(parts[2])) return false;
  result.found.push(bumpFinding(`${parts[0]}:${parts[1]}`, { to: parts[2], end: 0 }, {}));
  return true;
}

/** `bump lodash to 4.17.21 and express to 4.19.2`: the same verb, more packages. */
function readMoreBumps(w: Word[], j: number, result: SentenceResult, bot: SentenceResult['bot']): void {
  for (let n = 0; n < 10 && (lower(w[j]) === 'and' || w[j - 1]?.pause); n++) {
    const at = lower(w[j]) === 'and' ? j + 1 : j;
    if (!w[at] || !isPackageName(w[at].text)) return;
    const target = readTarget(w, at + 1);
    if (!target.to) return;
    result.found.push(bumpFinding(w[at].text, target, { bot }));
    j = target.end;
  }
}

function bumpFinding(
  pkg: string,
  target: Target,
  how: { bot?: SentenceResult['bot']; action?: 'named' | 'likely'; paths?: string[]; downgrade?: boolean },
): Finding {
  const to = target.to as string;
  const from = target.from === undefined ? {} : { from: isRange(target.from) ? target.from : bareVersion(target.from) };
  const paths = how.paths ? { paths: how.paths } : {};
  const wording = { wordingSource: how.bot ?? 'person', ...(how.action ? { action: how.action } : {}) } as const;
  if (isRange(to)) return { step: { recipe: 'constrain-dependency', package: pkg, range: to, ...paths }, ...from, confidence: 'plain', ...wording };
  // A major alone (`to v9`) does not say which release, except where it is the reference itself:
  // an action's tag, or Dependabot's title, which writes versions as the manifest does.
  const exact = !isMajorOnly(to) || how.action !== undefined || how.bot === 'dependabot';
  const step: CandidateStep = { recipe: 'bump-dependency', package: pkg, to: bareVersion(to), ...(how.downgrade ? { allowDowngrade: true } : {}), ...paths };
  return { step, ...from, confidence: exact ? 'plain' : 'inferred', ...wording };
}

function botOf(verb: string, kind: string | undefined, suffix: string | undefined, target: Target): SentenceResult['bot'] {
  if (suffix === 'requirement') return 'dependabot';
  if ((verb === 'bump' || verb === 'bumps' || verb === 'updates') && target.from !== undefined && kind === undefined) return 'dependabot';
  if (verb === 'update' && target.from === undefined && (suffix === 'action' || (kind !== undefined && kind !== 'package' && kind !== 'library')))
    return 'renovate';
  return undefined;
}

/** Dependabot's `in /client`: the directory of the manifest. The root names no path. */
function directoryOf(w: Word[], j: number): string[] | undefined {
  if (lower(w[j]) !== 'in' || !w[j + 1]) return undefined;
  const dir = w[j + 1].text;
  if (!/^\/[\w./-]*$/.test(dir) || dir.split('/').includes('..')) return undefined;
  const path = dir.replace(/^\/+/, '').replace(/\/+$/, '');
  return path === '' ? undefined : [path];
}

function missPackage(w: Word[], at: number, result: SentenceResult): void {
  const word = lower(w[at]);
  if (word === 'to' && w[at + 1] && versionLike(w[at + 1].text)) return miss(result, WHY.versionOnly);
  if (MANY_WORDS.has(word) || ['our', 'every', 'any', 'some'].includes(word) || MANY_WORDS.has(lower(w[at + 1]))) {
    if (manyWithGroup(w, at)) result.group = true;
    return miss(result, WHY.noPackage);
  }
  if (!w[at]) miss(result, WHY.noPackage);
}

/** Renovate's `update all non-major dependencies` and Dependabot's `bump the X group`. */
function manyWithGroup(w: Word[], at: number): boolean {
  return lower(w[at]) === 'all' || w.slice(at, at + 4).some((word) => lower(word) === 'group');
}

function missVersion(w: Word[], at: number, result: SentenceResult): void {
  const next = w[at + 1];
  const several = Boolean(w[at].pause) || lower(next) === 'and' || lower(next) === '&';
  if (several && w.slice(at + 1, at + 4).some((word) => isPackageName(word.text) && !['and'].includes(lower(word)))) {
    result.group = true;
    return miss(result, WHY.several);
  }
  miss(result, WHY.noVersion);
}

const BOUNDS: { words: string[]; op: string }[] = [
  { words: ['at', 'or', 'below'], op: '<=' },
  { words: ['at', 'most'], op: '<=' },
  { words: ['at', 'or', 'above'], op: '>=' },
  { words: ['at', 'least'], op: '>=' },
  { words: ['below'], op: '<' },
  { words: ['under'], op: '<' },
  { words: ['above'], op: '>' },
];

/** `keep urllib3 below 3`, `pin requests to 2.31.0`, `cap numpy at 2`: a constraint, in comparator form. */
function readConstraint(w: Word[], i: number, result: SentenceResult): void {
  const verb = lower(w[i]);
  const { j: at } = skipArticles(w, i + 1);
  const pkg = w[at];
  if (!pkg || !isPackageName(pkg.text)) {
    if (verb === 'pin' || verb === 'constrain') miss(result, WHY.noPackage);
    return;
  }
  const j = lower(w[at + 1]) === 'version' ? at + 2 : at + 1;
  const bound = boundAt(w, j, verb);
  if (!bound) {
    if (verb === 'pin' || verb === 'constrain') miss(result, WHY.bound);
    return;
  }
  result.found.push({ step: { recipe: 'constrain-dependency', package: pkg.text, range: bound }, confidence: 'plain', wordingSource: 'person' });
}

function boundAt(w: Word[], j: number, verb: string): string | undefined {
  const versionAt = (k: number): string | undefined => {
    if (lower(w[k]) === 'version' || lower(w[k]) === 'v') k++;
    return w[k] && isVersion(w[k].text) ? bareVersion(w[k].text) : undefined;
  };
  if (w[j] && isRange(w[j].text)) return w[j].text;
  for (const bound of BOUNDS) {
    if (!bound.words.every((word, k) => lower(w[j + k]) === word)) continue;
    const version = versionAt(j + bound.words.length);
    return version === undefined ? undefined : `${bound.op}${version}`;
  }
  const exactWord = lower(w[j]);
  if (verb === 'pin' && (exactWord === 'to' || exactWord === 'at')) {
    const version = versionAt(j + 1);
    return version === undefined ? undefined : `==${version}`;
  }
  return undefined;
}
