import { RecordedExchange } from '../engines/llm/recorded-exchange.js';
import { Ledger, type LedgerEntry } from '../phases/ledger.js';
import type { PhaseContext } from '../phases/orchestrator.js';
import type { PipelineEnv } from './pipeline-env.js';

export interface SegmentReplay {
  exchanges: RecordedExchange[];
  from: 'attempt' | 'earlier-attempt';
}

/**
 * The model exchanges a segment replays instead of asking the model again: those this attempt
 * already recorded (an invocation resumed after a crash or a timeout), or, when it has none, those
 * of the previous attempt if that attempt stopped on a model error in this phase: a
 * `/agent retry` after a provider outage picks the conversation up where the error cut it. A
 * refusal, a loop or an empty answer is not carried over: asking the same again would end the same.
 */
export async function segmentReplay(env: PipelineEnv, context: PhaseContext, segmentId: string): Promise<SegmentReplay> {
  const own = exchangesOf(context.ledger.entries(), context.phase, segmentId);
  if (own.length > 0 || env.attempt < 2) return { exchanges: own, from: 'attempt' };
  const previous = await Ledger.open(env.store, env.keys.attempt(env.attempt - 1).ledgerPrefix, env.clock);
  const entries = previous.entries();
  const stopped = entries.find((e) => e.type === 'RUN_STOPPED');
  if (stopped?.phase !== context.phase || stopped.payload.reason !== 'MODEL_ERROR') return { exchanges: [], from: 'attempt' };
  return { exchanges: exchangesOf(entries, context.phase, segmentId), from: 'earlier-attempt' };
}

function exchangesOf(entries: readonly LedgerEntry[], phase: string, segmentId: string): RecordedExchange[] {
  return entries
    .filter((e) => e.type === 'MODEL_EXCHANGE' && e.phase === phase && e.payload.segment === segmentId)
    .map((e) => RecordedExchange.parse(e.payload.exchange));
}
