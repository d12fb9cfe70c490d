import { AgentError } from '../errors.js';
import type { Workspace } from '../workspace/workspace.js';
import type { Ledger } from './ledger.js';
import type { PhaseContract, ToolName } from './phase-contracts.js';

export type PhaseContractReason = 'TOOL_NOT_ALLOWED' | 'FILE_NOT_ALLOWED' | 'STEP_BUDGET_EXCEEDED';
export class PhaseContractError extends AgentError<PhaseContractReason> {}

/**
 * Enforces one phase's contract at run time. Every tool use goes through `use`; a tool the
 * contract does not allow is refused, and the refusal is ledgered before the error is thrown.
 */
export class PhaseRuntime {
  private steps = 0;

  /** The step budget: the contract's, grown with the plan by `phaseStepBudget`. */
  readonly maxSteps: number;

  constructor(
    readonly contract: PhaseContract,
    private readonly ledger: Ledger,
    private readonly writablePaths: (path: string) => boolean,
    maxSteps: number = contract.budgets.maxSteps,
  ) {
    this.maxSteps = maxSteps;
  }

  get stepsUsed(): number {
    return this.steps;
  }

  /** Refuse (and ledger) a tool the contract does not allow; counts no step. */
  async allow(tool: ToolName, detail: Record<string, unknown> = {}): Promise<void> {
    if (!this.contract.allowedTools.includes(tool)) {
      await this.ledger.append({ actor: 'orchestrator', phase: this.contract.name, type: 'TOOL_REFUSED', payload: { tool, ...detail } });
      throw new PhaseContractError('TOOL_NOT_ALLOWED', `${tool} is not allowed in phase ${this.contract.name}`, { tool, phase: this.contract.name });
    }
  }

  /** One step of the phase: the tool must be allowed and the step budget not spent. */
  async use(tool: ToolName, detail: Record<string, unknown> = {}): Promise<void> {
    await this.allow(tool, detail);
    this.steps += 1;
    if (this.steps > this.maxSteps) {
      await this.ledger.append({
        actor: 'orchestrator',
        phase: this.contract.name,
        type: 'STEP_BUDGET_EXCEEDED',
        payload: { tool, steps: this.steps, maxSteps: this.maxSteps },
      });
      throw new PhaseContractError('STEP_BUDGET_EXCEEDED', `phase ${this.contract.name} used more than ${this.maxSteps} steps`, {
        phase: this.contract.name,
        maxSteps: this.maxSteps,
      });
    }
  }

  /** Check a write (or, with `file_delete`, a deletion) against the contract's tools and file rule, ledgering a refusal. */
  async checkWrite(path: string, tool: 'file_write' | 'file_delete' = 'file_write'): Promise<void> {
    await this.allow(tool, { path });
    if (this.contract.allowedFiles === 'none' || !this.writablePaths(path)) {
      await this.ledger.append({ actor: 'orchestrator', phase: this.contract.name, type: 'WRITE_REFUSED', payload: { path } });
      throw new PhaseContractError('FILE_NOT_ALLOWED', `phase ${this.contract.name} may not write ${path}`, { path, phase: this.contract.name });
    }
  }

  /**
   * The workspace as this phase may use it: reads count as `file_read`, writes and deletes are
   * checked against the contract. The underlying workspace is never handed out.
   */
  guard(workspace: Workspace): Workspace {
    const runtime = this;
    return {
      get fs() {
        return workspace.fs;
      },
      gitdir: workspace.gitdir,
      baseCommitSha: workspace.baseCommitSha,
      baseTreeSha: workspace.baseTreeSha,
      missing: workspace.missing,
      paths: () => workspace.paths(),
      entry: (p) => workspace.entry(p),
      baseEntry: (p) => workspace.baseEntry(p),
      read: async (p) => {
        await runtime.allow('file_read', { path: p });
        return workspace.read(p);
      },
      readText: async (p) => {
        await runtime.allow('file_read', { path: p });
        return workspace.readText(p);
      },
      readBase: async (p) => {
        await runtime.allow('file_read', { path: p });
        return workspace.readBase(p);
      },
      write: async (p, content, mode) => {
        await runtime.checkWrite(p);
        return workspace.write(p, content, mode);
      },
      delete: async (p) => {
        await runtime.checkWrite(p, 'file_delete');
        return workspace.delete(p);
      },
      changes: () => workspace.changes(),
      reset: () => {
        throw new PhaseContractError('TOOL_NOT_ALLOWED', 'a phase may not reset the workspace', { phase: runtime.contract.name });
      },
    };
  }
}
