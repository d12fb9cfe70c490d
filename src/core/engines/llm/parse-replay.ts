import { LlmEngineError } from './llm-engine-error.js';
import { RecordedExchange } from './recorded-exchange.js';

/** Recorded exchanges to replay, validated: well-formed, numbered in order, and all of `phase`. */
export function parseReplay(replay: RecordedExchange[], phase: string): RecordedExchange[] {
  return replay.map((entry, index) => {
    const parsed = RecordedExchange.safeParse(entry);
    if (!parsed.success) throw new LlmEngineError('INVALID_REPLAY', `recorded exchange ${index} is malformed`, { index }, { cause: parsed.error });
    if (parsed.data.seq !== index || parsed.data.phase !== phase) {
      throw new LlmEngineError('INVALID_REPLAY', `recorded exchange ${index} is out of order or from another phase`, {
        index,
        seq: parsed.data.seq,
        phase: parsed.data.phase,
      });
    }
    return parsed.data;
  });
}
