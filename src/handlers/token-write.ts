import { SSMClient } from '@aws-sdk/client-ssm';
import { createTokenHandler, ssmPrivateKeyLoader, TokenHandlerEnv } from '../app/tokens/token-handler.js';

/**
 * token-write: mints a write-scoped installation token for one repository. One of
 * the two functions that may read the App key; the key is read once per cold start.
 */
const env = TokenHandlerEnv.parse(process.env);

export const handler = createTokenHandler({
  role: 'write',
  appId: env.GITHUB_APP_ID,
  apiUrl: env.GITHUB_API_URL,
  clock: { now: () => Date.now() },
  loadPrivateKey: ssmPrivateKeyLoader(new SSMClient({}), env.APP_PRIVATE_KEY_PARAMETER),
});
