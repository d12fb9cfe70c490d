import { maxEditableBytes } from '../../policy/agent-policy.js';
import { z } from 'zod';
import { defineLlmTool, type LlmTool } from '../../engines/llm/index.js';
import { PhaseContractError } from '../../phases/phase-runtime.js';
import { writeDenial } from '../../paths/write-rules.js';
import { dataFormatForPath } from '../../syntax/language-for-path.js';
import { sha256Hex } from '../../util/digest.js';
import { normalizeRepoPath } from '../../util/repo-path.js';
import { closestLines, locateEdit } from './text-edit.js';
import { ModelToolError, type ModelToolContext } from './tool-context.js';

/** `file_write` replaces whole files up to this size (or creates them); larger files are edited with `file_edit`. */
export const MAX_WHOLE_WRITE_BYTES = 8 * 1024;
/** Parse problems listed in one tool result. */
const MAX_PROBLEMS_SHOWN = 10;

/** The `  12| ` prefix `file_read` puts before each line. */
const NUMBERED = /^\s*\d+\| /;

type EditKind = 'file_edit' | 'file_create' | 'file_delete' | 'file_write';

const encoder = new TextEncoder();

/**
 * The edit tools: search/replace, create, delete and small whole-file writes. Each edit passes
 * the same gate (segment files, policy and task scope judged through symlinks, size limit), is
 * ledgered as EDIT_APPLIED, and answers with the file's parse problems so the model can fix them.
 */
export function editTools(ctx: ModelToolContext): LlmTool<any>[] {
  const allowed = ctx.allowed;
  // A new file may sit beside one of the segment's files (a new test next to its subject).
  const besideAllowed = (dir: string): boolean => [...allowed].some((p) => p.slice(0, Math.max(0, p.lastIndexOf('/'))) === dir);
  const limit = maxEditableBytes(ctx.env.policy);
  let edits = 0;

  const gate = async (raw: string, kind: EditKind): Promise<string> => {
    const path = normalizeRepoPath(raw);
    const dir = path.slice(0, Math.max(0, path.lastIndexOf('/')));
    const creating = ctx.workspace.entry(path) === undefined;
    if (!allowed.has(path) && !(creating && kind !== 'file_edit' && besideAllowed(dir))) {
      throw new PhaseContractError('FILE_NOT_ALLOWED', `${path} is not one of the files this segment may change`, { path });
    }
    const denial = writeDenial(path, ctx.views.rules, await ctx.symlinks());
    if (denial) throw new ModelToolError(denial.reason, `${path}: ${denial.message}`, { path });
    const mode = ctx.workspace.entry(path)?.mode;
    if (mode === '120000') throw new ModelToolError('SYMLINK_NOT_EDITABLE', `${path} is a symlink; symlinks are never edited`, { path });
    if (mode === '160000') throw new ModelToolError('SUBMODULE_NOT_EDITABLE', `${path} is a submodule; submodules are never edited`, { path });
    return path;
  };

  const apply = async (kind: EditKind, path: string, before: Uint8Array | undefined, after: string | undefined, summary: string): Promise<string> => {
    const bytes = after === undefined ? undefined : encoder.encode(after);
    // The size limit holds for repair segments too, whose files do not come from planning.
    if (Math.max(before?.length ?? 0, bytes?.length ?? 0) > limit) {
      throw new PhaseContractError('FILE_NOT_ALLOWED', `${path} is over the ${ctx.env.policy.ingestion.maxFileSizeMb} MB file size limit`, { path });
    }
    if (bytes === undefined) await ctx.workspace.delete(path);
    else await ctx.workspace.write(path, bytes);
    ctx.written.set(path, (ctx.written.get(path) ?? 0) + 1);
    const payload = {
      segment: ctx.segment.id,
      edit: ++edits,
      tool: kind,
      path,
      bytesBefore: before?.length ?? 0,
      bytesAfter: bytes?.length ?? 0,
      sha256After: bytes ? sha256Hex(bytes) : null,
    };
    // A resumed segment replays its recorded tool calls: an edit already ledgered is not ledgered twice.
    const ledgered = ctx.context.ledger
      .entries()
      .some(
        (e) =>
          e.type === 'EDIT_APPLIED' &&
          e.phase === ctx.context.phase &&
          e.payload.segment === payload.segment &&
          e.payload.edit === payload.edit &&
          e.payload.sha256After === payload.sha256After,
      );
    if (!ledgered) await ctx.context.ledger.append({ actor: 'model', phase: ctx.context.phase, type: 'EDIT_APPLIED', payload });
    return after === undefined ? summary : `${summary}\n${parseReport(ctx, path, after, before)}`;
  };

  const existing = async (path: string): Promise<Uint8Array | undefined> => (ctx.workspace.entry(path) ? ctx.workspace.read(path) : undefined);

  return [
    defineLlmTool({
      name: 'file_edit',
      description:
        'Replace exact text in a file: oldText must occur exactly once (copy it from file_read without the line numbers, with enough context to be unique) ' +
        "unless replaceAll is true. The result lists the file's parse problems after the edit.",
      args: z.object({ path: z.string(), oldText: z.string().min(1), newText: z.string(), replaceAll: z.boolean().optional() }),
      run: async ({ path, oldText, newText, replaceAll }) => {
        const p = await gate(path, 'file_edit');
        const { text, bytes } = await ctx.readText(p);
        const located = locateEdit(text, oldText, newText);
        if (located.matches.length === 0) {
          const near = closestLines(text, oldText);
          const hint = near.length > 0 ? `; closest lines:\n${near.map((l) => `${l.line}| ${l.text}`).join('\n')}` : '';
          const why = located.whitespaceOnly
            ? ' (it does when whitespace is ignored: copy indentation exactly)'
            : NUMBERED.test(oldText)
              ? ' (it starts with a line number from file_read: leave the numbers out)'
              : '';
          throw new ModelToolError('EDIT_NO_MATCH', `oldText does not occur in ${p}${why}${hint}`, { path: p });
        }
        if (located.matches.length > 1 && replaceAll !== true) {
          throw new ModelToolError(
            'EDIT_AMBIGUOUS',
            `oldText occurs ${located.matches.length} times in ${p}, at lines ${located.matches.map((m) => m.line).join(', ')}; add surrounding lines to make it unique, or set replaceAll`,
            { path: p, lines: located.matches.map((m) => m.line) },
          );
        }
        const after = located.apply(replaceAll === true);
        if (after === text) throw new ModelToolError('EDIT_NO_CHANGE', `newText equals oldText; ${p} is unchanged`, { path: p });
        const where = located.matches.map((m) => m.line).join(', ');
        return apply(
          'file_edit',
          p,
          bytes,
          after,
          `edited ${p}: replaced ${replaceAll ? located.matches.length : 1} occurrence(s) at line(s) ${replaceAll ? where : located.matches[0].line}`,
        );
      },
    }),
    defineLlmTool({
      name: 'file_create',
      description: 'Create a new file (fails if it exists). New files may be created beside the files this segment may change.',
      args: z.object({ path: z.string(), content: z.string() }),
      run: async ({ path, content }) => {
        const p = await gate(path, 'file_create');
        if (ctx.workspace.entry(p)) throw new ModelToolError('FILE_EXISTS', `${p} exists; change it with file_edit`, { path: p });
        return apply('file_create', p, undefined, content, `created ${p} (${encoder.encode(content).length} bytes)`);
      },
    }),
    defineLlmTool({
      name: 'file_delete',
      description: 'Delete one of the files this segment may change.',
      args: z.object({ path: z.string() }),
      run: async ({ path }) => {
        const p = await gate(path, 'file_delete');
        const before = await existing(p);
        if (!before) throw new ModelToolError('FILE_NOT_FOUND', `no such file: ${p}`, { path: p });
        return apply('file_delete', p, before, undefined, `deleted ${p}`);
      },
    }),
    defineLlmTool({
      name: 'file_write',
      description: `Replace the whole content of a small file (up to ${MAX_WHOLE_WRITE_BYTES} bytes) this segment may change, or create it; use file_edit for larger files.`,
      args: z.object({ path: z.string(), content: z.string() }),
      run: async ({ path, content }) => {
        const p = await gate(path, 'file_write');
        const before = await existing(p);
        if (before && before.length > MAX_WHOLE_WRITE_BYTES) {
          throw new ModelToolError(
            'WHOLE_WRITE_TOO_LARGE',
            `${p} is ${before.length} bytes, over the ${MAX_WHOLE_WRITE_BYTES}-byte limit of whole-file writes; change it with file_edit`,
            { path: p, bytes: before.length },
          );
        }
        return apply('file_write', p, before, content, `wrote ${p}`);
      },
    }),
  ];
}

/** The file's parse problems after an edit, and whether its base version had as many (not the edit's doing). */
function parseReport(ctx: ModelToolContext, path: string, text: string, before: Uint8Array | undefined): string {
  const problems = ctx.env.syntax.parseProblems(path, text);
  if (problems.length === 0)
    return ctx.env.syntax.languageFor(path) || dataFormatForPath(path) ? 'parse: ok' : 'parse: not checked (no parser for this file type)';
  const earlier = before ? ctx.env.syntax.parseProblems(path, new TextDecoder().decode(before)).length : 0;
  const shown = problems.slice(0, MAX_PROBLEMS_SHOWN).map((p) => `  line ${p.line}, column ${p.column}: ${p.type}: ${p.message}`);
  const more = problems.length > shown.length ? `\n  … ${problems.length - shown.length} more` : '';
  const note = earlier > 0 ? ` (the file had ${earlier} before this edit)` : '';
  return `parse problems: ${problems.length}${note}; fix them before finishing\n${shown.join('\n')}${more}`;
}
