import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { formatProblems } from '../../core/policy/document-problem.js';
import { parsePolicy } from '../../core/policy/parse-policy.js';
import { deprecationWarnings } from '../../core/policy/policy-deprecations.js';
import { PolicyError } from '../../core/policy/policy-error.js';
import { UsageError, type CliIo } from './cli-io.js';

/** `draftsman policy check [FILE]`: 0 when the policy is valid, else 1 with `file:line:col: message` lines. */
export function policyCheckCommand(argv: string[], io: CliIo): number {
  const parsed = parseArgs({ args: argv, allowPositionals: true, options: { json: { type: 'boolean', default: false } } });
  if (parsed.positionals.length > 1) throw new UsageError('policy check takes at most one FILE');
  const file = parsed.positionals[0] ?? '.agent-policy.yaml';
  let text: Buffer;
  try {
    text = readFileSync(resolve(io.cwd, file));
  } catch {
    throw new UsageError(`cannot read ${file}`);
  }
  try {
    parsePolicy({ text, file });
    // Valid: deprecated keys are warnings, each with what to write instead.
    const warnings = deprecationWarnings(text.toString('utf8'), file);
    if (parsed.values.json) io.stdout(`${JSON.stringify({ file, status: 'VALID', problems: [], warnings })}\n`);
    else io.stdout(`${file}: valid${warnings.length > 0 ? `, ${warnings.length} warning(s)\n${formatProblems(warnings)}` : ''}\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof PolicyError)) throw error;
    io.stdout(`${error.format()}\n`);
    if (parsed.values.json) io.stdout(`${JSON.stringify({ file, status: 'INVALID', reason: error.reason, problems: error.data.problems })}\n`);
    return 1;
  }
}
