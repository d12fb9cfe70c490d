import { AgentPolicy, MAX_POLICY_FILE_BYTES, POLICY_FILE_NAME, defaultPolicy } from './agent-policy.js';
import { PolicyError } from './policy-error.js';
import { validateYaml } from './validate-yaml.js';

export interface PolicySource {
  /** File content; undefined when the repository has no policy file (all defaults apply). */
  text: string | Uint8Array | undefined;
  /** Name used in problems; defaults to `.agent-policy.yaml`. */
  file?: string;
}

/**
 * Parse and validate `.agent-policy.yaml`. A missing file gives the documented defaults; a file
 * over 1 MiB is refused before parsing (POLICY_FILE_TOO_LARGE); otherwise every YAML and schema
 * problem is collected into one POLICY_FILE_INVALID error, each with its line and column.
 */
export function parsePolicy(source: PolicySource): AgentPolicy {
  const file = source.file ?? POLICY_FILE_NAME;
  if (source.text === undefined) return defaultPolicy();
  const bytes = typeof source.text === 'string' ? utf8Length(source.text) : source.text.byteLength;
  if (bytes > MAX_POLICY_FILE_BYTES) {
    throw new PolicyError('POLICY_FILE_TOO_LARGE', `${file} is ${bytes} bytes; the limit is ${MAX_POLICY_FILE_BYTES}`, {
      file,
      sizeBytes: bytes,
      problems: [
        { file, line: 1, column: 1, path: '', type: 'SCHEMA', message: `the file is ${bytes} bytes; a policy may be at most ${MAX_POLICY_FILE_BYTES} bytes` },
      ],
    });
  }
  const text = typeof source.text === 'string' ? source.text : decodeUtf8(source.text, file);
  const result = validateYaml(text, AgentPolicy, { file });
  if (result.ok) return result.value;
  const count = result.problems.length;
  throw new PolicyError('POLICY_FILE_INVALID', `${file} has ${count} problem${count === 1 ? '' : 's'}`, { file, problems: result.problems });
}

function decodeUtf8(bytes: Uint8Array, file: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (error) {
    throw new PolicyError(
      'POLICY_FILE_INVALID',
      `${file} is not valid UTF-8`,
      { file, problems: [{ file, line: 1, column: 1, path: '', type: 'YAML_SYNTAX', message: 'the file is not valid UTF-8' }] },
      { cause: error },
    );
  }
}

/** UTF-8 byte length; a string longer than the cap in UTF-16 units is over it in bytes too. */
function utf8Length(text: string): number {
  if (text.length > MAX_POLICY_FILE_BYTES) return text.length;
  return new TextEncoder().encode(text).byteLength;
}
