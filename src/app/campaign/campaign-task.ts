import type { CampaignSpec } from '../../core/campaign/campaign-spec.js';
import { renderAgentBlock } from '../../core/phases/analysis-report.js';

/** The text every run of the campaign gets: the title, the description, and the campaign's `agent` block (analysis with `publish: none`). */
export function campaignTask(spec: CampaignSpec): string {
  const task = spec.publish === 'none' ? { ...spec.task, mode: 'analysis' as const } : spec.task;
  return [spec.title, '', ...(spec.description ? [spec.description, ''] : []), ...renderAgentBlock(task), ''].join('\n');
}
