import { z } from 'zod';
import { RepoGlob } from '../policy/repo-glob.js';
import { TaskBlock } from '../task/task-contract.js';

/**
 * `campaign.yaml`: one change over many repositories (docs/campaigns.md). Each repository runs
 * as an ordinary run: its own `.agent-policy.yaml` still decides, and the campaign's task is
 * the `agent` block every run gets.
 */

/** Repositories in one campaign; past this, split it. */
export const MAX_CAMPAIGN_REPOSITORIES = 1000;

const RepoName = z
  .string()
  .regex(/^[A-Za-z0-9-]{1,39}\/[A-Za-z0-9._-]{1,100}$/, 'expected owner/name')
  .describe('A repository as owner/name.');

const NamePattern = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9._*?/-]+$/, 'expected owner/name with * and ? as wildcards')
  .describe('owner/name, with * and ? as wildcards.');

export const CampaignSelector = z
  .strictObject({
    names: z
      .array(NamePattern)
      .min(1)
      .max(100)
      .optional()
      .describe('Repository names to take (owner/name globs); absent: every repository the App is installed on.'),
    topics: z.array(z.string().min(1).max(50)).max(20).optional().describe('Take a repository only when it has every one of these topics.'),
    language: z.string().min(1).max(50).optional().describe("Take a repository only when this is its primary language (GitHub's detection)."),
    archived: z.boolean().optional().describe('Take archived repositories too (true) or leave them out (false, the default).'),
    forks: z.boolean().optional().describe('Take forks too (true) or leave them out (false, the default).'),
    hasFile: z
      .strictObject({
        path: RepoGlob.describe("A file matching this glob on the default branch (the CLI: the checkout's HEAD commit)."),
        contains: z.string().min(1).max(200).optional().describe('Text the file must contain (plain text, not a pattern).'),
      })
      .optional()
      .describe('Take a repository only when its default branch has a file matching `path` (containing `contains`).'),
  })
  .describe('Which repositories to take, evaluated when the campaign starts.');
export type CampaignSelector = z.infer<typeof CampaignSelector>;

export const CampaignSpec = z
  .strictObject({
    version: z.literal(1).describe('Spec version; must be 1.'),
    name: z
      .string()
      .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'lower-case letters, digits and dashes, at most 63')
      .describe('The campaign id: in branch names, keys and the tracking comment.'),
    title: z.string().min(1).max(200).describe("Each run's task title and its pull request's title."),
    description: z.string().max(20_000).default('').describe("Each run's task text, shown before the evidence in every pull request."),
    task: TaskBlock.describe('The `agent` block every repository runs (steps, mode, paths, budgets).'),
    repositories: z
      .strictObject({
        list: z.array(RepoName).max(MAX_CAMPAIGN_REPOSITORIES).optional().describe('Repositories by name.'),
        select: CampaignSelector.optional(),
      })
      .optional()
      .describe('Which repositories (the list, the selection, or both); the CLI applies them to its `--repos`.'),
    pullRequest: z
      .strictObject({
        branchPrefix: z
          .string()
          .regex(/^[A-Za-z0-9._/-]{1,60}$/, 'letters, digits, and . _ / -')
          .optional()
          .describe('Branch name prefix of the campaign pull requests.'),
        bodyPreface: z.string().max(5000).optional().describe('Text above the evidence in every pull request body.'),
      })
      .default({})
      .describe('How the pull requests read.'),
    pace: z
      .strictObject({
        concurrency: z.number().int().min(1).max(50).default(2).describe('Repositories in progress at once.'),
        startsPerMinute: z
          .number()
          .int()
          .min(1)
          .max(60)
          .default(10)
          .describe('Most runs started per minute (the App keeps it within GitHub limits, docs/campaigns.md).'),
        toleratedFailurePercent: z
          .number()
          .int()
          .min(0)
          .max(100)
          .default(10)
          .describe('The App: the share of repositories whose branch may fail (an error, not a declined or failed run) before the campaign stops.'),
      })
      .prefault({})
      .describe('How fast the campaign goes.'),
    publish: z
      .enum(['draft', 'none'])
      .default('draft')
      .describe('draft: a draft pull request per repository; none: an analysis per repository (what each would change).'),
  })
  .meta({ title: 'draftsman campaign', description: 'One change over many repositories: campaign.yaml.' });
export type CampaignSpec = z.infer<typeof CampaignSpec>;

/** The JSON Schema of campaign.yaml (input form), committed as schema/campaign.schema.json. */
export function campaignJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(CampaignSpec, { io: 'input', target: 'draft-2020-12' }) as Record<string, unknown>;
}
