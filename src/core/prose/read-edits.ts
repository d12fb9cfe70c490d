/**
 * The requests of a sentence that edit code or text rather than versions: rename, replace,
 * migrate an import, remove a dependency (read-sentence.ts reads the version requests).
 */
import { WHY } from './prose-why.js';
import { isIdentifier, isModulePath, isPackageName, isUrl, lower, type Word } from './prose-words.js';
import { miss, type SentenceResult } from './sentence-result.js';

const SYMBOL_KINDS = new Set(['class', 'interface', 'function', 'method', 'field', 'variable', 'type']);

export function readRename(w: Word[], i: number, result: SentenceResult): void {
  let j = i + 1;
  if (lower(w[j]) === 'the') j++;
  const kind = SYMBOL_KINDS.has(lower(w[j])) ? lower(w[j]) : undefined;
  if (kind) j++;
  const [from, joint, to] = [w[j], lower(w[j + 1]), w[j + 2]];
  if (!from || !to || !['to', 'into', 'as', '->', '→'].includes(joint || w[j + 1]?.text) || !isIdentifier(from.text) || !isIdentifier(to.text)) {
    return miss(result, WHY.rename);
  }
  const confidence = from.code && to.code ? 'plain' : 'inferred';
  result.found.push({ step: { recipe: 'rename-symbol', from: from.text, to: to.text, ...(kind ? { kind } : {}) }, confidence, wordingSource: 'person' });
}

export function readReplace(w: Word[], i: number, result: SentenceResult): void {
  let j = i + 1;
  if (lower(w[j]) === 'all' && ['occurrences', 'uses', 'usages'].includes(lower(w[j + 1])) && lower(w[j + 2]) === 'of') j += 3;
  const [find, joint, replace] = [w[j], lower(w[j + 1]), w[j + 2]];
  if (!find || !replace || (joint !== 'with' && joint !== 'by')) return miss(result, WHY.replace);
  const literal = (find.code && replace.code) || (find.quoted && replace.quoted) || (isUrl(find.text) && isUrl(replace.text));
  if (!literal || find.text === '') return miss(result, WHY.replace);
  result.found.push({ step: { recipe: 'replace', find: find.text, replace: replace.text }, confidence: 'plain', wordingSource: 'person' });
}

/** `… from https://old to https://new` anywhere in a sentence that asks for a change: a literal replacement. */
export function readUrlPair(w: Word[], result: SentenceResult): void {
  for (let i = 1; i + 3 < w.length; i++) {
    if (lower(w[i]) !== 'from' || lower(w[i + 2]) !== 'to' || !isUrl(w[i + 1].text) || !isUrl(w[i + 3].text)) continue;
    const asks = w.slice(0, i).some((word) => ['update', 'change', 'replace', 'point', 'switch', 'move', 'swap'].includes(lower(word)));
    if (asks) result.found.push({ step: { recipe: 'replace', find: w[i + 1].text, replace: w[i + 3].text }, confidence: 'plain', wordingSource: 'person' });
  }
}

export function readMigrate(w: Word[], i: number, result: SentenceResult): void {
  let j = i + 1;
  if (lower(w[j]) === 'the') j++;
  if (['imports', 'import', 'code', 'usages'].includes(lower(w[j]))) j++;
  if (lower(w[j]) === 'from') j++;
  const [from, joint, to] = [w[j], lower(w[j + 1]), w[j + 2]];
  if (!from || !to || joint !== 'to' || !isModulePath(from.text) || !isModulePath(to.text)) return miss(result, WHY.migrate);
  result.found.push({ step: { recipe: 'migrate-import', from: from.text, to: to.text }, confidence: 'plain', wordingSource: 'person' });
}

const DEPENDENCY_WORDS = new Set(['dependency', 'dependencies', 'package', 'library', 'dep', 'deps']);
const MANIFEST_WORDS = new Set([
  'dependencies',
  'deps',
  'package.json',
  'requirements.txt',
  'requirements',
  'pom.xml',
  'go.mod',
  'build.gradle',
  'pyproject.toml',
  'cargo.toml',
]);

/** `remove the dependency on left-pad`, `drop left-pad from package.json`: only with a word that says it is a dependency. */
export function readRemove(w: Word[], i: number, result: SentenceResult): void {
  let j = i + 1;
  if (lower(w[j]) === 'the') j++;
  if (lower(w[j]) === 'unused') j++;
  const named = DEPENDENCY_WORDS.has(lower(w[j]));
  if (named) j++;
  if (lower(w[j]) === 'on') j++;
  const pkg = w[j];
  const after = lower(w[j + 1]);
  const cue = named || DEPENDENCY_WORDS.has(after) || (after === 'from' && MANIFEST_WORDS.has(lower(w[j + 2]) === 'the' ? lower(w[j + 3]) : lower(w[j + 2])));
  if (!cue) return;
  if (!pkg || !isPackageName(pkg.text)) return miss(result, WHY.remove);
  result.found.push({ step: { recipe: 'remove-dependency', package: pkg.text }, confidence: 'plain', wordingSource: 'person' });
}
