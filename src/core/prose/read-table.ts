import type { BodyTable, TableCell } from './markdown-prose.js';
import type { CandidateStep, WordingSource } from './prose-reading.js';
import { bareVersion, isMajorOnly, isPackageName, isRange, isVersion, words } from './prose-words.js';
import type { Finding } from './read-sentence.js';

export interface TableRowResult {
  finding?: Finding;
  /** The row asks for something no recipe does (a digest, a pin): why. */
  unread?: string;
  /** The words of the row, for the reading's `text`. */
  text: string;
}

interface Columns {
  pkg: number;
  change: number;
  from: number;
  to: number;
  type: number;
  update: number;
}

/**
 * Rows of an update table, as Renovate writes it (`| Package | Change | Age | … |`, in some
 * versions with `Type`, `Update` or `Datasource` columns; the change as `` `1.2.3` -> `1.2.4` ``
 * or `→`) and as Dependabot writes it (`| Package | From | To |`). A table with no package column
 * and no versions is not an update table: undefined.
 */
export function readUpdateTable(table: BodyTable): { rows: TableRowResult[]; wording: Exclude<WordingSource, 'person'> } | undefined {
  const columns = columnsOf(table.header);
  if (columns.pkg < 0 || (columns.change < 0 && (columns.from < 0 || columns.to < 0))) return undefined;
  const wording = columns.change >= 0 ? 'renovate' : 'dependabot';
  return { rows: table.rows.map((row) => readRow(row, columns)), wording };
}

function columnsOf(header: string[]): Columns {
  const find = (...names: string[]) => header.findIndex((cell) => names.includes(cell.toLowerCase().replace(/[^a-z]/g, '')));
  return {
    pkg: find('package', 'dependency', 'depname', 'name'),
    change: find('change'),
    from: find('from', 'currentversion', 'current'),
    to: find('to', 'newversion', 'new'),
    type: find('type', 'deptype'),
    update: find('update', 'updatetype'),
  };
}

function readRow(row: TableCell[], columns: Columns): TableRowResult {
  const cell = (index: number): TableCell | undefined => (index >= 0 ? row[index] : undefined);
  const pkgCell = cell(columns.pkg);
  const pkg = pkgCell ? (pkgCell.lead ?? words(pkgCell.text)[0]?.text ?? '') : '';
  const text = row.map((c) => c.text).join(' | ');
  const update = (cell(columns.update)?.text ?? '').toLowerCase();
  if (['digest', 'pin', 'pindigest', 'lockfilemaintenance'].includes(update.replace(/[^a-z]/g, '')))
    return { text, unread: 'a digest or pin update: no recipe edits digests' };
  const change = columns.change >= 0 ? changeOf(cell(columns.change)?.text ?? '') : { from: valueOf(cell(columns.from)), to: valueOf(cell(columns.to)) };
  if (!isPackageName(pkg) || !change.to) return { text };
  const action = (cell(columns.type)?.text ?? '').toLowerCase() === 'action';
  return { text, finding: rowFinding(pkg, change as { from?: string; to: string }, action) };
}

/** `` `1.2.3` -> `1.2.4` `` (or `→`): the versions either side of the arrow. */
function changeOf(text: string): { from?: string; to?: string } {
  const w = words(text);
  const arrow = w.findIndex((word) => !word.code && ['->', '→', '=>', 'to'].includes(word.text));
  if (arrow < 1 || !w[arrow + 1]) return {};
  const versionish = (value: string) => isVersion(value) || isRange(value);
  const from = w[arrow - 1].text;
  const to = w[arrow + 1].text;
  return versionish(to) ? { ...(versionish(from) ? { from } : {}), to } : {};
}

function valueOf(cell: TableCell | undefined): string | undefined {
  const value = cell ? (cell.lead ?? cell.text).replace(/`/g, '').trim() : '';
  return isVersion(value) || isRange(value) ? value : undefined;
}

function rowFinding(pkg: string, change: { from?: string; to: string }, action: boolean): Finding {
  const from = change.from === undefined ? {} : { from: isRange(change.from) ? change.from : bareVersion(change.from) };
  const step: CandidateStep = isRange(change.to)
    ? { recipe: 'constrain-dependency', package: pkg, range: change.to }
    : { recipe: 'bump-dependency', package: pkg, to: bareVersion(change.to) };
  // A major alone in a table is a tag as declared (`v3` -> `v4` of an action, a Docker tag): it is exact there.
  const confidence = isMajorOnly(change.to) && !action ? 'inferred' : 'plain';
  return { step, ...from, confidence, ...(action ? { action: 'named' as const } : {}) };
}
