/**
 * Credentials recognised by their documented prefix and shape. The part after the prefix must
 * look issued (not a run of one character, not `EXAMPLE`): see `not-secret.ts`. Every repetition
 * is bounded so no pattern costs more than linear time on a long line.
 */
export type TokenRule =
  | 'aws-access-key-id'
  | 'github-token'
  | 'private-key'
  | 'slack-token'
  | 'slack-webhook'
  | 'stripe-key'
  | 'gitlab-token'
  | 'digitalocean-token'
  | 'mailgun-key'
  | 'twilio-key'
  | 'npm-auth'
  | 'openai-key'
  | 'anthropic-key'
  | 'sendgrid-key'
  | 'shopify-token'
  | 'huggingface-token'
  | 'groq-key'
  | 'linear-key'
  | 'notion-token'
  | 'grafana-token'
  | 'vault-token'
  | 'databricks-token'
  | 'figma-token'
  | 'tailscale-key'
  | 'google-api-key'
  | 'pypi-token'
  | 'docker-pat'
  | 'azure-storage-key'
  | 'azure-sas-key'
  | 'azure-devops-pat'
  | 'jwt';

export interface TokenFormat {
  rule: TokenRule;
  re: RegExp;
  /** Characters kept visible in a preview (the public prefix). */
  keep: number;
}

/** The first line of a private key block: PEM/OpenSSH, SSH2 (RFC 4716) and PuTTY key files. */
export const PRIVATE_KEY_BEGIN =
  /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|-{4,5} ?BEGIN SSH2 (?:ENCRYPTED )?PRIVATE KEY ?-{4,5}|\bPuTTY-User-Key-File-\d+:/g;
/** Where the secret part of such a block ends (PuTTY: the MAC line after the private lines). */
export const PRIVATE_KEY_END = /-{4,5} ?END [A-Z0-9 ]*PRIVATE KEY[A-Z ]*-{4,5}|^Private-MAC:/;

export const TOKEN_FORMATS: readonly TokenFormat[] = [
  // Access key ids of long-lived (AKIA) and temporary (ASIA) credentials; other 4-letter prefixes name users and roles, not keys.
  { rule: 'aws-access-key-id', re: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, keep: 4 },
  { rule: 'github-token', re: /\b(?:ghp|gho|ghs|ghu|ghr)_[A-Za-z0-9_]{30,255}\b/g, keep: 4 },
  { rule: 'github-token', re: /\bgithub_pat_[A-Za-z0-9_]{22,255}\b/g, keep: 11 },
  { rule: 'private-key', re: PRIVATE_KEY_BEGIN, keep: 11 },
  { rule: 'slack-token', re: /\bxox[abposr]-[A-Za-z0-9-]{10,255}/g, keep: 5 },
  { rule: 'slack-token', re: /\bxapp-\d-[A-Za-z0-9-]{10,255}/g, keep: 5 },
  { rule: 'slack-webhook', re: /\bhooks\.slack\.com\/(?:services|workflows|triggers)\/T[A-Z0-9]{6,12}\/[A-Z0-9]{6,14}\/[A-Za-z0-9]{16,64}/g, keep: 25 },
  { rule: 'stripe-key', re: /\b(?:sk|rk)_live_[A-Za-z0-9]{16,255}\b/g, keep: 8 },
  // GitLab personal/project/group access tokens: `glpat-` and 20 characters (longer in newer formats).
  { rule: 'gitlab-token', re: /\bglpat-[A-Za-z0-9_-]{20,255}/g, keep: 6 },
  // DigitalOcean personal, OAuth and refresh tokens: a prefix and 64 hex digits.
  { rule: 'digitalocean-token', re: /\bdo[opr]_v1_[a-f0-9]{64}\b/g, keep: 7 },
  // Mailgun private API keys: `key-` and 32 characters.
  { rule: 'mailgun-key', re: /\bkey-[0-9a-zA-Z]{32}\b/g, keep: 4 },
  // Twilio API key SIDs (`SK` + 32 hex); an auth token is 32 hex next to the word twilio.
  { rule: 'twilio-key', re: /\bSK[0-9a-fA-F]{32}\b/g, keep: 2 },
  // npm granular and automation tokens.
  { rule: 'npm-auth', re: /\bnpm_[A-Za-z0-9]{36}\b/g, keep: 4 },
  // The following follow secretlint's recommended preset (formats documented by each vendor).
  {
    rule: 'openai-key',
    re: /\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{58,74}T3BlbkFJ[A-Za-z0-9_-]{58,74}|\bsk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}/g,
    keep: 3,
  },
  { rule: 'anthropic-key', re: /\bsk-ant-(?:api|admin)0\d-[A-Za-z0-9_-]{80,128}/g, keep: 7 },
  { rule: 'sendgrid-key', re: /\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b/g, keep: 3 },
  { rule: 'shopify-token', re: /\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32,64}\b/g, keep: 6 },
  { rule: 'huggingface-token', re: /\bhf_[A-Za-z]{34}\b/g, keep: 3 },
  { rule: 'groq-key', re: /\bgsk_[A-Za-z0-9]{52}\b/g, keep: 4 },
  { rule: 'linear-key', re: /\blin_api_[A-Za-z0-9_]{32,128}\b/g, keep: 8 },
  { rule: 'notion-token', re: /\bntn_[0-9]{11}[A-Za-z0-9]{35}\b/g, keep: 4 },
  { rule: 'grafana-token', re: /\bglsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}\b|\bglc_[A-Za-z0-9+/]{32,400}={0,2}/g, keep: 5 },
  { rule: 'vault-token', re: /\bhv[sb]\.[A-Za-z0-9_-]{90,120}/g, keep: 4 },
  { rule: 'databricks-token', re: /\bdapi[a-f0-9]{32}(?:-\d)?\b/g, keep: 4 },
  { rule: 'figma-token', re: /\bfigd_[A-Za-z0-9_-]{40,200}/g, keep: 5 },
  { rule: 'tailscale-key', re: /\btskey-[a-z]{2,20}-[0-9A-Za-z_]{8,40}-[0-9A-Za-z_]{16,60}/g, keep: 6 },
  // Google API keys (Maps, Firebase, Cloud): `AIza` and 35 characters.
  { rule: 'google-api-key', re: /\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/g, keep: 4 },
  // PyPI upload tokens: a macaroon whose base64 always starts with the same bytes (`pypi-AgEIcHlwaS5vcmc`).
  { rule: 'pypi-token', re: /\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,1000}/g, keep: 5 },
  // Docker Hub personal access tokens.
  { rule: 'docker-pat', re: /\bdckr_pat_[A-Za-z0-9_-]{27,64}/g, keep: 9 },
  // The account key of an Azure Storage connection string (88 base64 characters).
  { rule: 'azure-storage-key', re: /\bAccountKey=([A-Za-z0-9+/]{86}==)/g, keep: 11 },
  // The key of a Service Bus, Event Hubs or Relay connection string (44 base64 characters).
  { rule: 'azure-sas-key', re: /\bSharedAccessKey=([A-Za-z0-9+/]{43}=)/g, keep: 16 },
  // Azure DevOps personal access tokens (the 84-character format: `AZDO` at character 77).
  { rule: 'azure-devops-pat', re: /\b[A-Za-z0-9]{76}AZDO[A-Za-z0-9]{4}\b/g, keep: 0 },
  // A signed JSON Web Token: a base64url JSON header and payload (`eyJ`), and a signature.
  { rule: 'jwt', re: /\beyJ[A-Za-z0-9_-]{8,2000}\.eyJ[A-Za-z0-9_-]{8,8000}\.[A-Za-z0-9_-]{16,1000}/g, keep: 3 },
];
