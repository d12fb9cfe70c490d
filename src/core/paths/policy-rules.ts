import type { AgentRule, RuleAction, RuleEvent, RuleToolClass } from '../policy/agent-rules.js';
import { compileUserRegex, type UserRegex } from '../util/user-regex.js';
import { compileGlobs, type GlobSet } from './glob.js';

/**
 * The policy's `agent.rules`, evaluated by the orchestrator: before each tool call the model makes
 * (`on: tool`) and on every change before publication, by the worker and again by the publisher
 * against the trusted policy (`on: change`). One function decides both; the rules are compiled
 * once per policy (globs into one matcher, `addedLines` on the linear-time regex engine).
 */

/** What one rule is asked about: a tool call, or one changed file. */
export interface RuleSubject {
  on: RuleEvent;
  /** The tool's class (src/core/phases/tool-classes.ts), or the change's (`delete` for a deleted file, else `write`); null: no class. */
  toolClass: RuleToolClass | null;
  /** Repository paths the call names, or the changed file's path. */
  paths: readonly string[];
  /** Lines the call or the change adds. */
  addedLines: readonly string[];
}

/** One rule that fired: which (its index in `agent.rules`), what it does and why, and the path it matched when it names paths. */
export interface RuleFiring {
  rule: number;
  on: RuleEvent;
  action: RuleAction;
  reason: string;
  path?: string;
}

interface CompiledRule {
  index: number;
  rule: AgentRule;
  classes?: ReadonlySet<string>;
  paths?: GlobSet;
  added?: UserRegex;
}

const compiled = new WeakMap<readonly AgentRule[], CompiledRule[]>();

function compile(rules: readonly AgentRule[]): CompiledRule[] {
  let out = compiled.get(rules);
  if (!out) {
    out = rules.map((rule, index) => ({
      index,
      rule,
      ...(rule.tools ? { classes: new Set<string>(rule.tools) } : {}),
      // Ignoring case, like forbiddenPaths: a deny must also hold on a case-insensitive checkout.
      ...(rule.paths ? { paths: compileGlobs(rule.paths, { nocase: true }) } : {}),
      ...(rule.addedLines !== undefined ? { added: compileUserRegex(rule.addedLines) } : {}),
    }));
    compiled.set(rules, out);
  }
  return out;
}

/** The path a rule's globs match among the subject's; '' when the rule names no paths; undefined when none matches. */
function matchedPath(c: CompiledRule, subject: RuleSubject): string | undefined {
  if (!c.paths) return '';
  return subject.paths.find((p) => c.paths!(p));
}

/** Every rule the subject matches, in policy order. */
export function evaluateRules(rules: readonly AgentRule[], subject: RuleSubject): RuleFiring[] {
  if (rules.length === 0) return [];
  const firings: RuleFiring[] = [];
  for (const c of compile(rules)) {
    if (c.rule.on !== subject.on) continue;
    if (c.classes && (subject.toolClass === null || !c.classes.has(subject.toolClass))) continue;
    const path = matchedPath(c, subject);
    if (path === undefined) continue;
    if (c.added && !subject.addedLines.some((line) => c.added!.test(line))) continue;
    firings.push({ rule: c.index, on: c.rule.on, action: c.rule.action, reason: c.rule.reason, ...(path ? { path } : {}) });
  }
  return firings;
}

/** One changed file as the change rules see it. */
export interface RuleChange {
  path: string;
  deleted: boolean;
  addedLines: readonly string[];
}

/** The `on: change` rules every changed file fires, file by file. */
export function changeRuleFirings(rules: readonly AgentRule[], changes: readonly RuleChange[]): RuleFiring[] {
  if (!rules.some((r) => r.on === 'change')) return [];
  return changes.flatMap((c) =>
    evaluateRules(rules, { on: 'change', toolClass: c.deleted ? 'delete' : 'write', paths: [c.path], addedLines: c.addedLines }).map((f) => ({
      ...f,
      path: c.path,
    })),
  );
}

/** A firing in words, for refusals, violations and the report: `agent.rules[2] (deny): reason`. */
export function describeFiring(f: RuleFiring): string {
  return `agent.rules[${f.rule}] (${f.action}): ${f.reason}${f.path ? ` (${f.path})` : ''}`;
}
