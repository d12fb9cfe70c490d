import { GetParameterCommand, type SSMClient } from '@aws-sdk/client-ssm';

/** Read one SecureString parameter (decrypted). Called once per cold start by a composition root. */
export async function readSecureParameter(ssm: Pick<SSMClient, 'send'>, name: string): Promise<string> {
  const out = await ssm.send(new GetParameterCommand({ Name: name, WithDecryption: true }));
  const value = out.Parameter?.Value;
  if (!value) throw new Error(`parameter ${name} is empty`);
  return value;
}
