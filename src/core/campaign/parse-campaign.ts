import { AgentError } from '../errors.js';
import { formatProblems, type DocumentProblem } from '../policy/document-problem.js';
import { validateYaml } from '../policy/validate-yaml.js';
import { blockContent, findFencedBlocks, splitLines } from '../task/fenced-blocks.js';
import { CampaignSpec } from './campaign-spec.js';

/** A campaign spec file is read whole; past this it is refused before parsing. */
export const MAX_CAMPAIGN_FILE_BYTES = 256 * 1024;

/** A campaign.yaml that cannot be used; `data.problems` lists every problem, each at its line and column. */
export class CampaignError extends AgentError<'CAMPAIGN_INVALID'> {
  declare readonly data: { file: string; problems: DocumentProblem[] };

  /** `file:line:col: path: message` lines, as `campaign check` prints them. */
  format(): string {
    return formatProblems(this.data.problems);
  }
}

/** Parse and validate a campaign spec: every YAML and schema problem at once, as the policy's are. */
export function parseCampaign(text: string, file: string): CampaignSpec {
  const bytes = new TextEncoder().encode(text).byteLength;
  if (bytes > MAX_CAMPAIGN_FILE_BYTES) {
    const problem: DocumentProblem = {
      file,
      line: 1,
      column: 1,
      path: '',
      type: 'SCHEMA',
      message: `the file is ${bytes} bytes; a campaign may be at most ${MAX_CAMPAIGN_FILE_BYTES}`,
    };
    throw new CampaignError('CAMPAIGN_INVALID', `${file} is too large`, { file, problems: [problem] });
  }
  const result = validateYaml(text, CampaignSpec, { file });
  if (result.ok) return result.value;
  const count = result.problems.length;
  throw new CampaignError('CAMPAIGN_INVALID', `${file} has ${count} problem${count === 1 ? '' : 's'}`, { file, problems: result.problems });
}

/**
 * The campaign spec in a home issue's first ```` ```agent ```` block (docs/campaigns.md, "The
 * App"), validated as `parseCampaign` does, problems at the issue's own lines. No block, or one
 * never closed, is a problem too.
 */
export function parseCampaignBlock(body: string, name: string): CampaignSpec {
  const lines = splitLines(body);
  const block = findFencedBlocks(lines).find((b) => b.infoWord === 'agent');
  const missing = (message: string, line = 1): never => {
    const problem: DocumentProblem = { file: name, line, column: 1, path: '', type: 'SCHEMA', message };
    throw new CampaignError('CAMPAIGN_INVALID', `${name}: ${message}`, { file: name, problems: [problem] });
  };
  if (!block) return missing('no ```agent block with the campaign spec');
  if (block.closeLine === undefined) return missing('this ```agent block is never closed; end it with a line of ```', block.openLine + 1);
  const content = blockContent(lines, block).join('\n');
  if (new TextEncoder().encode(content).byteLength > MAX_CAMPAIGN_FILE_BYTES)
    return missing(`the campaign spec is larger than ${MAX_CAMPAIGN_FILE_BYTES} bytes`);
  const result = validateYaml(content, CampaignSpec, { file: name, lineOffset: block.openLine + 1, columnOffset: block.indent });
  if (result.ok) return result.value;
  const count = result.problems.length;
  throw new CampaignError('CAMPAIGN_INVALID', `${name} has ${count} problem${count === 1 ? '' : 's'}`, { file: name, problems: result.problems });
}
