import type { CliIo } from './cli-io.js';

/**
 * The model settings, by the names the App reads (serve, Lambda): the CLI reads the same. The
 * CLI's earlier names are aliases, still read, each with a warning naming its replacement.
 */
export const MODEL_SETTINGS = [
  { name: 'MODEL_PROVIDER', alias: 'DRAFTSMAN_MODEL_PROVIDER' },
  { name: 'MODEL_NAME', alias: 'DRAFTSMAN_MODEL' },
  { name: 'MODEL_BASE_URL', alias: 'DRAFTSMAN_MODEL_BASE_URL' },
  { name: 'MODEL_REGION', alias: 'DRAFTSMAN_MODEL_REGION' },
  { name: 'MODEL_API_KEY', alias: 'DRAFTSMAN_MODEL_API_KEY' },
  { name: 'MODEL_PRICES', alias: 'DRAFTSMAN_MODEL_PRICES' },
  { name: 'MODEL_MAX_OUTPUT_TOKENS', alias: 'DRAFTSMAN_MODEL_MAX_OUTPUT_TOKENS' },
] as const;

export type ModelSettingName = (typeof MODEL_SETTINGS)[number]['name'];

/** Each model setting's value (the name first, else its alias), and one warning per alias in use. */
export function modelEnv(env: CliIo['env']): { values: Partial<Record<ModelSettingName, string>>; warnings: string[] } {
  const values: Partial<Record<ModelSettingName, string>> = {};
  const warnings: string[] = [];
  for (const { name, alias } of MODEL_SETTINGS) {
    const value = env[name];
    const old = env[alias];
    if (value !== undefined && value !== '') values[name] = value;
    if (old === undefined || old === '') continue;
    if (values[name] === undefined) {
      values[name] = old;
      warnings.push(`${alias} is an old name, still read: set ${name} instead (serve and the deployed App read the same name)`);
    } else if (old !== values[name]) warnings.push(`${alias} is ignored: ${name} is set and wins`);
  }
  return { values, warnings };
}
