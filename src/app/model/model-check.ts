import type { ModelProvider } from '../../core/ports.js';
import { ModelConfigError } from './model-settings.js';

/** A model that can say, without a model call, whether it is configured (the deployed worker's model-call client). */
export interface CheckableModel {
  check(): Promise<void>;
}

function isCheckable(model: ModelProvider): model is ModelProvider & CheckableModel {
  return typeof (model as Partial<CheckableModel>).check === 'function';
}

/**
 * The model's configuration problem, asked before the first phase; undefined when it is fine,
 * when the model cannot be asked (a model built in this process was checked when it was built),
 * or when asking failed for another reason (the first model call reports that one).
 */
export async function modelConfigProblem(model: ModelProvider | undefined): Promise<ModelConfigError | undefined> {
  if (!model || !isCheckable(model)) return undefined;
  try {
    await model.check();
    return undefined;
  } catch (error) {
    return error instanceof ModelConfigError ? error : undefined;
  }
}

/** The one sentence the issue shows for a model that is not configured: the setting, and what to do. */
export function modelConfigSentence(error: ModelConfigError): string {
  const cause = error.message.replace(/^invalid model settings: /, '');
  return `the model is not configured: ${cause}; fix the deployment's model settings (docs/operations.md, "Model failures"), then \`/agent retry\``;
}
