import { z } from 'zod';
import { defineLlmTool, type LlmTool } from '../../engines/llm/index.js';
import { hiddenByToolRules } from '../../phases/tool-classes.js';
import { redactSecrets, type SecretPathRules } from '../../secrets/secret-scan.js';
import { compileGlobs } from '../../paths/glob.js';
import { compileUserRegex, type UserRegex } from '../../util/user-regex.js';
import { ModelToolError, type ModelToolContext } from './tool-context.js';

/** Lines one `file_read` returns at most; a longer file is read in ranges. */
export const MAX_READ_LINES = 400;
/** Characters one `file_read` returns at most, whatever the line count. */
export const MAX_READ_CHARS = 60_000;
/** Bytes of text one search reads before it stops and says so. */
export const MAX_SEARCH_SCAN_BYTES = 32 * 1024 * 1024;
/** A matching line is shown up to this many characters. */
const MAX_LINE_CHARS = 200;

/**
 * `path:line: text` for the first `room` lines of `text` that match, matched and shown
 * redacted: a search over the raw text would tell, by match or no match, a redacted secret
 * character by character. The file is redacted as a whole (a key block spans lines), once, and
 * only when some raw line matches (redaction only removes text, or adds `****`).
 */
function matchingLines(file: { path: string; rules: SecretPathRules }, text: string, pattern: UserRegex, room: number): string[] {
  const { path } = file;
  if (!text.split('\n').some((line) => pattern.test(line))) return [];
  const lines = redactSecrets(text, file).text.split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length && out.length < room; i++) {
    // Indentation kept, so a matched line can be pasted into file_edit's oldText as it is.
    if (pattern.test(lines[i])) out.push(`${path}:${i + 1}: ${lines[i].trimEnd().slice(0, MAX_LINE_CHARS)}`);
  }
  return out;
}

/** A regular expression's marks in a query searched as literal text. */
const LOOKS_LIKE_REGEX = /\\[wdsbWDSB(\[.]|\.\*|\.\+|\[\^?[^\]]+\]|\(\?|\|/;

/** Why nothing matched, when the query was probably meant as a regular expression. */
function noMatch(query: string, regex: boolean): string {
  if (regex || !LOOKS_LIKE_REGEX.test(query)) return 'no match';
  return 'no match for the literal text; it looks like a regular expression: pass regex: true to search it as one';
}

/** `file_read` (whole file or a line range, numbered) and `code_search` (literal or regex, path globs). */
export function readTools(ctx: ModelToolContext): LlmTool<any>[] {
  return [
    defineLlmTool({
      name: 'file_read',
      description: `Read a text file of the repository as numbered lines (1-based). Use startLine/endLine for a range; at most ${MAX_READ_LINES} lines per call.`,
      args: z.object({
        path: z.string(),
        startLine: z.number().int().positive().optional(),
        endLine: z.number().int().positive().optional(),
      }),
      run: async ({ path, startLine, endLine }) => {
        const file = await ctx.readText(path);
        // Redacted with the file's own path (config files have stricter rules) before the model sees it.
        const lines = redactSecrets(file.text, { path: file.path, rules: ctx.views.rules }).text.split('\n');
        if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
        const total = lines.length;
        const from = startLine ?? 1;
        if (from > Math.max(total, 1))
          throw new ModelToolError('LINE_RANGE_INVALID', `${file.path} has ${total} lines; startLine ${from} is past the end`, { path: file.path, total });
        if (endLine !== undefined && endLine < from)
          throw new ModelToolError('LINE_RANGE_INVALID', `endLine ${endLine} is before startLine ${from}`, { path: file.path });
        const to = Math.min(endLine ?? total, total, from + MAX_READ_LINES - 1);
        const width = String(to).length;
        const out: string[] = [];
        let chars = 0;
        let last = from - 1;
        for (let n = from; n <= to; n++) {
          const line = `${String(n).padStart(width)}| ${lines[n - 1]}`;
          if (chars + line.length > MAX_READ_CHARS && out.length > 0) break;
          out.push(line);
          chars += line.length + 1;
          last = n;
        }
        const more = last < total ? `; continue with startLine ${last + 1}` : '';
        return `${file.path} lines ${from}-${last} of ${total}${more}\n${out.join('\n')}`;
      },
    }),
    defineLlmTool({
      name: 'code_search',
      description:
        'Search text files for a literal string, or a regular expression with regex: true (RE2 syntax: no lookaround or backreferences), line by line. ' +
        'paths narrows the search with globs (`src/**/*.ts`; `*.py` matches at the root only, `**/*.py` at any depth). ' +
        'Returns path:line: text, one match a line, the text with its indentation. A regex that does not compile is refused with the reason.',
      args: z.object({
        query: z.string().min(2).max(500),
        regex: z.boolean().optional(),
        caseSensitive: z.boolean().optional(),
        paths: z.array(z.string().min(1)).max(20).optional(),
        maxResults: z.number().int().positive().max(200).optional(),
      }),
      run: async ({ query, regex, caseSensitive, paths, maxResults }) => {
        const pattern = compileUserRegex(query, caseSensitive === false ? 'i' : '', { literal: regex !== true });
        const inPaths = paths && paths.length > 0 ? compileGlobs(paths) : () => true;
        const limit = maxResults ?? 50;
        const hidden = hiddenByToolRules(ctx.env.policy.agent.rules);
        const out: string[] = [];
        let scanned = 0;
        let stopped = '';
        let held = 0;
        for (const p of ctx.workspace.paths()) {
          if (out.length >= limit) break;
          if (!inPaths(p) || ctx.views.rules.isGenerated(p)) continue;
          const entry = ctx.workspace.entry(p);
          if (entry?.mode !== '100644' && entry?.mode !== '100755') continue;
          if (hidden(p)) {
            held += 1;
            continue;
          }
          if (scanned >= MAX_SEARCH_SCAN_BYTES) {
            stopped = `\n[search stopped after ${scanned} bytes; narrow it with paths]`;
            break;
          }
          const text = await ctx.contents.text(p);
          if (text === undefined) continue;
          scanned += text.length;
          out.push(...matchingLines({ path: p, rules: ctx.views.rules }, text, pattern, limit - out.length));
        }
        const more = out.length >= limit ? `\n[first ${limit} matches shown; narrow the query or raise maxResults]` : '';
        const withheld = held > 0 ? `\n[${held} file(s) the repository policy's rules keep from reading were not searched]` : '';
        return (out.join('\n') || noMatch(query, regex === true)) + more + stopped + withheld;
      },
    }),
  ];
}
