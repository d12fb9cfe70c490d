import { ExecutionAlreadyExists, SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';

/**
 * Starts a campaign's fan-out (docs/campaigns.md, "The App"): once per campaign, whatever
 * retries ask. `started` the first time, `running` when an execution of that name exists.
 */
export interface CampaignLauncher {
  /**
   * `name`: the execution's name (default the campaign id); `retry`: the execution retries the
   * failed repositories only; `refresh`: the execution only refreshes the tracking comment, after
   * `waitSeconds` (campaign-refresh.ts).
   */
  start(input: { campaignId: string; key: string; name?: string; retry?: boolean; refresh?: { waitSeconds: number } }): Promise<'started' | 'running'>;
}

type LaunchInput = Parameters<CampaignLauncher['start']>[0];

/** The state machine's input for a start (infra/campaign-state-machine.json): the record's key, `retry`, and for a refresh `refresh: true` and `waitSeconds`. */
export function executionInput({ key, retry, refresh }: LaunchInput): Record<string, unknown> {
  return { key, retry: retry ?? false, ...(refresh ? { refresh: true, waitSeconds: refresh.waitSeconds } : {}) };
}

/**
 * The Step Functions launcher: `StartExecution` of the campaign state machine, named by the
 * campaign id, so a redelivered start or a retried intake continues the same execution
 * (`ExecutionAlreadyExists` is not an error here). Its input is the campaign record's key.
 */
export function stepFunctionsLauncher(options: { stateMachineArn: string; client?: SFNClient }): CampaignLauncher {
  const client = options.client ?? new SFNClient({});
  return {
    async start(launch) {
      const { campaignId, name } = launch;
      try {
        const input = JSON.stringify(executionInput(launch));
        await client.send(new StartExecutionCommand({ stateMachineArn: options.stateMachineArn, name: name ?? campaignId, input }));
        return 'started';
      } catch (error) {
        if (error instanceof ExecutionAlreadyExists || (error as { name?: string }).name === 'ExecutionAlreadyExists') return 'running';
        throw error;
      }
    },
  };
}
