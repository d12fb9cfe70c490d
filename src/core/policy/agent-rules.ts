import { z } from 'zod';
import { MAX_USER_REGEX_LENGTH, userRegexProblem } from '../util/user-regex.js';
import { RepoGlob } from './repo-glob.js';

/** What a rule is checked on: each tool call the model makes, or each change before it is published. */
/**
 * A policy field holding a regular expression for the linear-time engine: checked on the field
 * (too long, not RE2, too large a program), so it is reported even when another key is wrong.
 */
export function userRegexField() {
  return z
    .string()
    .min(1)
    .max(MAX_USER_REGEX_LENGTH)
    .superRefine((pattern, ctx) => {
      const problem = userRegexProblem(pattern);
      if (problem) ctx.addIssue({ code: 'custom', message: `${problem.reason}: ${problem.message}` });
    });
}

export const RULE_EVENTS = ['tool', 'change'] as const;
export type RuleEvent = (typeof RULE_EVENTS)[number];

/**
 * Classes of tools, not tool names, so renaming a tool opens nothing. Which tool is in which
 * class is decided in one place (src/core/phases/tool-classes.ts); on a change, a deleted file is
 * `delete` and any other changed file `write`.
 */
export const RULE_TOOL_CLASSES = ['read', 'search', 'write', 'delete'] as const;
export type RuleToolClass = (typeof RULE_TOOL_CLASSES)[number];

export const RULE_ACTIONS = ['deny', 'require-approval'] as const;
export type RuleAction = (typeof RULE_ACTIONS)[number];

/** Most rules one policy may hold: each tool call is checked against all of them. */
export const MAX_AGENT_RULES = 100;

export const AgentRule = z
  .strictObject({
    on: z
      .enum(RULE_EVENTS)
      .describe(
        'tool: checked before each tool call the model makes; change: checked on every change (recipe or model) before publication, and again by the publisher.',
      ),
    tools: z
      .array(z.enum(RULE_TOOL_CLASSES))
      .min(1)
      .max(RULE_TOOL_CLASSES.length)
      .optional()
      .describe(
        'Tool classes the rule applies to (read, search, write, delete); absent means all. On a change, a deleted file is delete and any other file write.',
      ),
    paths: z
      .array(RepoGlob)
      .min(1)
      .max(200)
      .optional()
      .describe(
        'The rule applies only when the tool call or the changed file names a path matching one of these globs (matched ignoring case); absent means any.',
      ),
    addedLines: userRegexField()
      .optional()
      .describe(
        'The rule applies only when a line the call or change adds matches this regular expression (RE2 syntax, linear time: no lookaround or backreferences).',
      ),
    action: z
      .enum(RULE_ACTIONS)
      .describe(
        'deny: the tool call is refused (the model may go on), or the run ends BLOCKED (RULE_DENIED). require-approval (on: change only): the run stops in NEEDS_APPROVAL.',
      ),
    reason: z.string().min(1).max(500).describe('Shown in the refusal, the run report and the trail.'),
  })
  .superRefine((rule, ctx) => {
    if (rule.on === 'tool' && rule.action === 'require-approval') {
      ctx.addIssue({
        code: 'custom',
        path: ['action'],
        message: 'a tool call cannot wait for an approval: use deny, or an on: change rule with require-approval over the same paths',
      });
    }
    if (rule.action === 'require-approval' && rule.addedLines !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['addedLines'],
        message: 'an approval covers paths and contents, so require-approval rules match by tools and paths only: use deny with addedLines',
      });
    }
  });
export type AgentRule = z.infer<typeof AgentRule>;

export const AgentRules = z
  .array(AgentRule)
  .max(MAX_AGENT_RULES)
  .default([])
  .describe(
    'Rules the orchestrator checks (never asked of the model): a tool call or a change that matches a deny rule is refused; a change that matches a require-approval rule waits for a maintainer. Every firing is in the trail.',
  );

/** A policy with rules, shown in docs/policy-reference.md and checked to parse by the tests. */
export const AGENT_RULES_EXAMPLE = `version: 1
agent:
  rules:
    - on: tool
      tools: [read, search]
      paths: ['secrets/**', '**/*.pem']
      action: deny
      reason: key material is not read by runs
    - on: change
      addedLines: 'eval\\('
      action: deny
      reason: no eval in this code base
    - on: change
      tools: [delete]
      action: require-approval
      reason: deleting a file needs a maintainer
    - on: change
      paths: [migrations/]
      action: require-approval
      reason: schema migrations are reviewed by the data team
`;

/** The section of docs/policy-reference.md about `agent.rules`. */
export function agentRulesReference(): string[] {
  return [
    '## Rules that can say no (`agent.rules`)',
    '',
    'Each rule is checked by the orchestrator, never asked of the model. A rule fires when every',
    'filter it has matches: `on` (tool or change), `tools` (classes: read, search, write, delete;',
    'each tool has one class, so renaming a tool opens nothing), `paths` (globs, ignoring case; a',
    'tool call matches through the paths it names) and `addedLines` (a regular expression on the',
    'lines a write or a change adds, run in linear time). On a change, a deleted file is `delete`',
    'and any other file `write`.',
    '',
    '- `on: tool` is checked before each tool call. `deny` refuses the call with a tool error',
    '  (`RULE_DENIED` and the reason); the model may go on. A tool call cannot wait for an approval,',
    '  so `require-approval` is refused there. A file a `deny` rule keeps from `read` or `search` by',
    '  its path is also left out of a `code_search` over many files (the result says how many were',
    '  left out), so a search never shows what a read would refuse.',
    '- `on: change` is checked on every change, recipe or model, by the scope guard, and again by the',
    '  publisher against the policy on the default branch. `deny` ends the run BLOCKED with reason',
    "  `RULE_DENIED` and the rule's reason; `require-approval` stops it in NEEDS_APPROVAL through the",
    '  approval gate (`/agent approve`), so it matches by tools and paths only.',
    '',
    'Every firing is ledgered as `RULE_FIRED` (rule index, action, reason, tool, path); a refused',
    'tool call is also a `TOOL_REFUSED` entry. `draftsman policy check` reports a bad rule at its',
    'file:line:col, with the nearest value for a mistyped `on`, tool class or action.',
    '',
    '```yaml',
    ...AGENT_RULES_EXAMPLE.trimEnd().split('\n'),
    '```',
    '',
  ];
}
