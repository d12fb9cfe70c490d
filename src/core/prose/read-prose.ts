import { MAX_BODY_CHARS, readBodyProse } from './markdown-prose.js';
import type { ProseReading, ProseReadings, ProseSource, UnreadProse, WordingSource } from './prose-reading.js';
import { clip } from './prose-words.js';
import { WHY } from './prose-why.js';
import { readSentence, stripTitlePrefix, type Finding, type SentenceResult } from './read-sentence.js';
import { readUpdateTable } from './read-table.js';

/** Longer titles are cut (GitHub allows 256 characters). */
const MAX_TITLE_CHARS = 300;
/** Readings kept from one issue; a grouped update past this is better split. */
const MAX_READINGS = 100;
const MAX_UNREAD = 20;

/** How a bot opens the body of its request (the title may have been edited). */
const BOT_BODY = /^(?:Bumps |Updates the requirements on |This PR contains the following updates)/;

/**
 * The recipe steps an issue's title and body ask for in words (docs/architecture.md, "Floor
 * plan": `prose`), as candidates for grounding against the repository: Dependabot's and
 * Renovate's fixed wordings (titles, "Updates `x` from 1.0 to 2.0", update tables) and the ways
 * people ask ("upgrade jackson-databind to 2.17.1", "keep urllib3 below 3", "rename `A` to `B`").
 * A request it cannot read plainly is listed in `unread` with the reason, never guessed.
 * Readings are deduplicated by recipe and package; an exact version read from the body replaces
 * a major-only one read from the title. Pure: no I/O, bounded input, linear scans.
 */
export function readProse(input: { title: string; body: string }): ProseReadings {
  const collector = new Collector();
  const title = stripTitlePrefix(input.title.slice(0, MAX_TITLE_CHARS).trim());
  const titleResult = readSentence(title);
  const bot = titleResult.bot ?? botOfBody(input.body);
  collector.addSentence(titleResult, 'title', title, undefined);

  const body = readBodyProse(input.body, { botLayout: bot !== undefined });
  const listed: string[] = [];
  for (const sentence of body.sentences) {
    const result = readSentence(sentence.text);
    // A bot's body only restates or details its title: its other words are not requests.
    collector.addSentence(bot ? { found: result.found } : result, sentence.source, sentence.text, bot);
    if (!bot && sentence.source === 'list' && result.found.length === 0 && asksForChange(sentence.text)) listed.push(sentence.text);
  }
  collector.beyond(listed);
  for (const table of body.tables) {
    const read = readUpdateTable(table);
    if (!read) continue;
    for (const row of read.rows) {
      if (row.finding) collector.add({ ...row.finding, wordingSource: bot ?? read.wording }, 'table', row.text);
      else if (row.unread) collector.miss(row.text, row.unread);
    }
  }
  if (body.unparsed) collector.miss('(the body)', 'not read: it nests quotes or lists too deeply to parse');
  if (body.clipped) collector.miss(`(the body past its first ${MAX_BODY_CHARS} characters)`, 'not read: only the start of a body is read');
  return collector.finish(titleResult, title);
}

/** Verbs a list item opens with when it asks for a change (`test with 36`, `avoid requiring JDK 21`). */
const CHANGE_VERBS = new Set([
  'add',
  'adjust',
  'allow',
  'apply',
  'avoid',
  'bump',
  'change',
  'clean',
  'convert',
  'delete',
  'disable',
  'document',
  'drop',
  'enable',
  'exclude',
  'extract',
  'fix',
  'handle',
  'ignore',
  'include',
  'increase',
  'decrease',
  'lower',
  'make',
  'migrate',
  'move',
  'raise',
  'refactor',
  'regenerate',
  'remove',
  'rename',
  'replace',
  'require',
  'restore',
  'revert',
  'rewrite',
  'run',
  'set',
  'simplify',
  'skip',
  'support',
  'switch',
  'test',
  'update',
  'upgrade',
  'use',
]);

/** Whether a sentence opens with an imperative that asks for a change. */
function asksForChange(text: string): boolean {
  const first = /^[A-Za-z]+/.exec(text.trim())?.[0].toLowerCase();
  return first !== undefined && CHANGE_VERBS.has(first);
}

function botOfBody(body: string): Exclude<WordingSource, 'person'> | undefined {
  const start = body.trimStart().slice(0, 200);
  if (!BOT_BODY.test(start)) return undefined;
  return start.startsWith('This PR') ? 'renovate' : 'dependabot';
}

const keyOf = (reading: Pick<ProseReading, 'step'>): string => {
  const { step } = reading;
  if (typeof step.package === 'string') return `${step.recipe === 'remove-dependency' ? 'remove' : 'version'}\u0000${step.package}`;
  return `${step.recipe}\u0000${JSON.stringify(step)}`;
};

class Collector {
  private readonly readings: ProseReading[] = [];
  private readonly byKey = new Map<string, number>();
  private readonly unread: UnreadProse[] = [];
  private readonly beyondItems: UnreadProse[] = [];

  addSentence(result: SentenceResult, source: ProseSource, text: string, bot: WordingSource | undefined): void {
    for (const finding of result.found) this.add(bot ? { ...finding, wordingSource: bot } : finding, source, text);
    if (result.found.length === 0 && result.unread && !result.group) this.miss(text, result.unread);
  }

  add(finding: Finding, source: ProseSource, text: string): void {
    const reading: ProseReading = { ...finding, source, text: clip(text) };
    const key = keyOf(reading);
    const at = this.byKey.get(key);
    if (at === undefined) {
      if (this.readings.length >= MAX_READINGS) return this.miss(text, `not read: more than ${MAX_READINGS} steps in one issue`);
      this.byKey.set(key, this.readings.length);
      this.readings.push(reading);
      return;
    }
    const earlier = this.readings[at];
    // Dependabot's title says `in /client`, its body does not: one request.
    if (sameStep(earlier, reading)) {
      const paths = earlier.step.paths ?? reading.step.paths;
      this.readings[at] = {
        ...earlier,
        ...((earlier.from ?? reading.from) ? { from: earlier.from ?? reading.from } : {}),
        step: { ...earlier.step, ...(paths ? { paths } : {}) },
      };
      return;
    }
    // The title's `to v9` and the body's `8.57.0 -> 9.0.0` are one request, the body's exact.
    if (earlier.confidence === 'inferred' && reading.confidence === 'plain' && refines(earlier, reading)) {
      this.readings[at] = { ...reading, action: earlier.action ?? reading.action, wordingSource: earlier.wordingSource ?? reading.wordingSource };
      return;
    }
    if (reading.confidence === 'inferred' && earlier.confidence === 'plain' && refines(reading, earlier)) return;
    this.miss(text, `conflicts with "${earlier.text}": two different steps for ${String(reading.step.package ?? reading.step.recipe)}`);
  }

  /** A person's list items that ask for a change, unless they name a package a reading moves (`Bump robolectric`). */
  beyond(items: readonly string[]): void {
    const named = this.readings.map((r) => (typeof r.step.package === 'string' ? r.step.package.toLowerCase() : undefined)).filter((p) => p !== undefined);
    for (const item of items.slice(0, MAX_UNREAD)) {
      const lower = item.toLowerCase();
      if (!named.some((pkg) => lower.includes(pkg) || lower.includes(pkg.split(':').pop() ?? pkg)))
        this.beyondItems.push({ text: clip(item), why: 'asks for a change no step reads' });
    }
  }

  miss(text: string, why: string): void {
    if (this.unread.length < MAX_UNREAD && !this.unread.some((u) => u.text === clip(text) && u.why === why)) this.unread.push({ text: clip(text), why });
  }

  finish(title: SentenceResult, titleText: string): ProseReadings {
    // A grouped title ("update all non-major dependencies") is read through its body; without one, it is unread.
    if (title.group && title.found.length === 0 && this.readings.length === 0) this.unread.unshift({ text: clip(titleText), why: title.unread ?? WHY.group });
    return { readings: this.readings, unread: this.unread, beyond: this.beyondItems };
  }
}

function sameStep(a: ProseReading, b: ProseReading): boolean {
  const { paths: _a, ...stepA } = a.step;
  const { paths: _b, ...stepB } = b.step;
  return JSON.stringify(stepA) === JSON.stringify(stepB) && (!_a || !_b || JSON.stringify(_a) === JSON.stringify(_b));
}

/** A major-only version the exact one starts with (`9` and `9.0.0`), or the same range. */
function refines(rough: ProseReading, exact: ProseReading): boolean {
  const a = String(rough.step.to ?? rough.step.range ?? '');
  const b = String(exact.step.to ?? exact.step.range ?? '');
  return rough.step.recipe === exact.step.recipe && (b === a || b.startsWith(`${a}.`));
}
