import { sentencesOf } from '../prose/markdown-prose.js';
import type { RunReportInput } from '../phases/run-report-schema.js';
import { proseOnly } from '../text/report-markdown.js';
import { shortenAtWord } from '../util/shorten.js';
import type { ChangeOutput } from './phases/change-phase.js';

// The model's account in the run report: its final answer, and what it says it left unchecked.

/** Caveats kept per segment, and characters of each. */
const MAX_CAVEATS = 10;
const MAX_CAVEAT_CHARS = 300;

/** A negated verb of checking or doing, a few words apart: "did not run the tests", "couldn't reproduce it". */
const NEGATED_DOING =
  /\b(?:did not|didn't|could not|couldn't|cannot|can't|was unable to|were unable to|unable to|have not|haven't|has not|hasn't|was not able to|wasn't able to|not able to)\s+(?:\S+\s+){0,3}?(?:run|ran|test|tested|verify|verified|check|checked|confirm|confirmed|execute|executed|build|built|compile|compiled|try|tried|cover|covered|reproduce|reproduced|validate|validated|inspect|inspected|measure|measured|update|updated|add|added|write|written|find|found|access|install|installed)\b/i;
/** Words that say a thing is unchecked or left open on their own. */
const UNCHECKED =
  /\b(?:untested|unverified|not (?:yet )?(?:been )?(?:verified|tested|run|checked|confirmed|validated|covered|compiled|built|updated|documented)|caveats?|limitations?|TODO)\b/i;

/**
 * The account of each model segment that finished (its final answer; a segment a budget or an
 * error stopped has none) with its caveats: the sentences of its prose that say what the model
 * did not verify or could not do, read by fixed phrases (deterministic, no model asked).
 */
export function modelAccountOf(change: ChangeOutput | undefined): NonNullable<RunReportInput['modelAccount']> {
  return (change?.segments ?? []).flatMap((s) => {
    const text = s.engine === 'llm' && s.model?.status === 'DONE' && s.model.reason === 'MODEL_FINISHED' ? s.model.summary.trim() : '';
    return text ? [{ segment: s.id, text, caveats: caveatsOf(text) }] : [];
  });
}

export function caveatsOf(text: string): string[] {
  const sentences = proseOnly(text)
    .split(/\r?\n/)
    .flatMap((line) => sentencesOf(line.replace(/^\s*(?:[-*+]|\d+[.)])\s+/, '')));
  const caveats = sentences.filter((s) => NEGATED_DOING.test(s) || UNCHECKED.test(s)).map((s) => shortenAtWord(s, MAX_CAVEAT_CHARS));
  return [...new Set(caveats)].slice(0, MAX_CAVEATS);
}

/**
 * The segments' notes, without a model segment's own status line (`model <name>: DONE
 * (MODEL_FINISHED)`): its account says more, and a stop is said by the warnings.
 */
export function notesOf(change: ChangeOutput | undefined): string[] {
  const notes = (change?.segments ?? []).flatMap((s) => {
    const status = s.model ? ` ${s.model.status}${s.model.reason ? ` (${s.model.reason})` : ''}` : undefined;
    return s.notes.filter((n) => !(s.engine === 'llm' && status && n.startsWith('model ') && n.endsWith(`:${status}`)));
  });
  return [...new Set(notes)];
}
