import { compileGlobs } from '../paths/glob.js';
import { DEFAULT_LOCKFILE_PATTERNS } from '../policy/agent-policy.js';
import { isBinaryContent } from './git-objects.js';
import { diffLineArrays } from './line-diff.js';

export type SecretRule =
  | 'aws-access-key-id'
  | 'aws-secret-access-key'
  | 'github-token'
  | 'private-key'
  | 'slack-token'
  | 'stripe-key'
  | 'gitlab-token'
  | 'digitalocean-token'
  | 'mailgun-key'
  | 'twilio-key'
  | 'npm-auth'
  | 'url-credentials'
  | 'dotenv-file'
  | 'password-assignment'
  | 'high-entropy-string';

/** A finding never carries the secret: only where it is, which rule, and a redacted preview. */
export interface SecretFinding {
  path: string;
  line: number;
  rule: SecretRule;
  redactedPreview: string;
}

interface Match {
  rule: SecretRule;
  start: number;
  end: number;
  /** Characters of the match kept visible in the preview (a known prefix such as `ghp_`). */
  keep: number;
}

/** The first line of a private key block: PEM/OpenSSH, SSH2 (RFC 4716) and PuTTY key files. */
const PRIVATE_KEY_BEGIN = /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|-{4,5} ?BEGIN SSH2 (?:ENCRYPTED )?PRIVATE KEY ?-{4,5}|\bPuTTY-User-Key-File-\d+:/g;
/** Where the secret part of such a block ends (PuTTY: the MAC line after the private lines). */
const PRIVATE_KEY_END = /-{4,5} ?END [A-Z0-9 ]*PRIVATE KEY[A-Z ]*-{4,5}|^Private-MAC:/;
const TWILIO_TOKEN = /twilio[\w.-]{0,32}?(?:auth)?[_.-]?token["']?\s*[:=]\s*["']?([a-f0-9]{32})\b/dgi;
/** `.npmrc` `_auth` (base64 of user:password) and `_password`, possibly scoped to a registry. */
const NPM_AUTH = /(?:^|[\s:])_(?:auth|password)\s*=\s*["']?([A-Za-z0-9+/=]{8,})/dg;
/** A password inside a URL's userinfo (`scheme://user:password@host`); a URL with a user only has none. */
const URL_CREDENTIALS = /\b[a-z][a-z0-9+.-]{0,31}:\/\/[^\s:@/"'<>]{0,256}:([^\s@/"'<>]{1,256})@[^\s/"'<>]/dgi;

/** Token formats by their documented prefixes and lengths; `keep` characters stay visible in a preview. */
const PATTERNS: { rule: SecretRule; re: RegExp; keep: number }[] = [
  { rule: 'aws-access-key-id', re: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, keep: 4 },
  { rule: 'github-token', re: /\b(?:ghp|gho|ghs|ghu|ghr)_[A-Za-z0-9]{30,}\b/g, keep: 4 },
  { rule: 'github-token', re: /\bgithub_pat_[A-Za-z0-9_]{22,}\b/g, keep: 11 },
  { rule: 'private-key', re: PRIVATE_KEY_BEGIN, keep: 11 },
  { rule: 'slack-token', re: /\bxox[baprs]-[A-Za-z0-9-]{10,}/g, keep: 5 },
  { rule: 'stripe-key', re: /\b(?:sk|rk)_live_[A-Za-z0-9]{16,}\b/g, keep: 8 },
  // GitLab personal/project/group access tokens: `glpat-` and 20 characters (longer in newer formats).
  { rule: 'gitlab-token', re: /\bglpat-[A-Za-z0-9_-]{20,}/g, keep: 6 },
  // DigitalOcean personal, OAuth and refresh tokens: a prefix and 64 hex digits.
  { rule: 'digitalocean-token', re: /\bdo[opr]_v1_[a-f0-9]{64}\b/g, keep: 7 },
  // Mailgun private API keys: `key-` and 32 characters.
  { rule: 'mailgun-key', re: /\bkey-[0-9a-zA-Z]{32}\b/g, keep: 4 },
  // Twilio API key SIDs (`SK` + 32 hex); an auth token is 32 hex next to the word twilio.
  { rule: 'twilio-key', re: /\bSK[0-9a-fA-F]{32}\b/g, keep: 2 },
];

// Repetitions are bounded so that no pattern can cost more than linear time on a long line.
const AWS_SECRET = /(?:aws|secret_access|secretaccess)[\w.-]{0,64}["']?\s*[:=]\s*["']?([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])/gi;
const PASSWORD_KEY = /(?:^|[^A-Za-z0-9_])((?:[A-Za-z0-9_]{0,64}[_.-])?(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token|client[_-]?secret|private[_-]?key))["']?\s*[:=]\s*(["']?)([^\s"'#,;]{4,})\2/gi;
const CONFIG_FILE = /\.(ya?ml|json|properties|env|ini|toml|conf|cfg|xml|tfvars)$|(^|\/)\.env(\.[^/]*)?$|(^|\/)\.npmrc$/i;
const PLACEHOLDER = /^(\$\{.*\}|\$\(.*\)|\$[A-Z_]+|<.*>|\{\{.*\}\}|%\(.*\)s|x+|\*+|\.\.\.|changeme|change_me|example|placeholder|redacted|null|none|true|false|undefined|your[_-].*|process\.env\..*|os\.environ.*|env\(.*|secrets\..*)$/i;
const TOKEN = /[A-Za-z0-9+/=_-]{20,}/g;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const INTEGRITY = /(?:sha1|sha256|sha384|sha512)-[A-Za-z0-9+/=]+/g;
/** A URL up to its query: paths (XML namespaces, schema locations) are not secrets; a query may hold one. */
const URL_PATH = /\b[a-z][a-z0-9+.-]{0,31}:\/\/[^\s"'<>?#]{0,2048}/gi;

/** Shannon entropy of a string, in bits per character. */
export function shannonEntropy(text: string): number {
  const counts = new Map<string, number>();
  for (const c of text) counts.set(c, (counts.get(c) ?? 0) + 1);
  let h = 0;
  for (const n of counts.values()) {
    const p = n / text.length;
    h -= p * Math.log2(p);
  }
  return h;
}

const isLockfile = compileGlobs(DEFAULT_LOCKFILE_PATTERNS);

/** A long base64/hex-ish token that looks random (and is not a UUID, an integrity hash, or a SHA in a lockfile). */
function highEntropy(token: string, path: string): boolean {
  if (UUID.test(token)) return false;
  const hex = /^[0-9a-fA-F]+$/.test(token);
  if (hex) {
    if (isLockfile(path)) return false;
    return token.length >= 32 && shannonEntropy(token) >= 3.5;
  }
  if (!/[0-9]/.test(token) || !/[a-z]/.test(token) || !/[A-Z]/.test(token)) return false;
  return shannonEntropy(token) >= 4.3;
}

function findInLine(line: string, path: string): Match[] {
  const out: Match[] = [];
  for (const p of PATTERNS) {
    for (const m of line.matchAll(p.re)) out.push({ rule: p.rule, start: m.index!, end: m.index! + m[0].length, keep: p.keep });
  }
  for (const m of line.matchAll(AWS_SECRET)) {
    const start = m.index! + m[0].length - m[1].length;
    out.push({ rule: 'aws-secret-access-key', start, end: start + m[1].length, keep: 0 });
  }
  // Patterns whose secret is group 1 (the `d` flag gives its exact span).
  for (const [rule, re] of [['twilio-key', TWILIO_TOKEN], ['npm-auth', NPM_AUTH], ['url-credentials', URL_CREDENTIALS]] as const) {
    for (const m of line.matchAll(re)) {
      if (PLACEHOLDER.test(m[1])) continue;
      const [start, end] = m.indices![1]!;
      out.push({ rule, start, end, keep: 0 });
    }
  }
  const config = CONFIG_FILE.test(path);
  for (const m of line.matchAll(PASSWORD_KEY)) {
    const value = m[3];
    const quoted = m[2] !== '';
    if (PLACEHOLDER.test(value)) continue;
    if (!config && !(quoted && value.length >= 6)) continue;
    const start = m.index! + m[0].lastIndexOf(value);
    out.push({ rule: 'password-assignment', start, end: start + value.length, keep: 0 });
  }
  const masked = line.replace(INTEGRITY, (s) => ' '.repeat(s.length)).replace(URL_PATH, (s) => ' '.repeat(s.length));
  for (const m of masked.matchAll(TOKEN)) {
    const start = m.index!;
    const end = start + m[0].length;
    if (out.some((o) => o.start < end && start < o.end)) continue;
    if (highEntropy(m[0], path)) out.push({ rule: 'high-entropy-string', start, end, keep: 0 });
  }
  return out.sort((a, b) => a.start - b.start);
}

function redactLine(line: string, matches: Match[]): string {
  let out = '';
  let at = 0;
  for (const m of matches) {
    if (m.start < at) continue;
    out += line.slice(at, m.start) + line.slice(m.start, m.start + m.keep) + '****';
    at = m.end;
  }
  return out + line.slice(at);
}

function preview(line: string, matches: Match[]): string {
  const redacted = redactLine(line, matches).trim();
  return redacted.length > 120 ? `${redacted.slice(0, 117)}...` : redacted;
}

/** Scan given lines (with their 1-based numbers) of one file. */
export function scanLines(path: string, lines: { line: number; text: string }[]): SecretFinding[] {
  const findings: SecretFinding[] = [];
  for (const { line, text } of lines) {
    const matches = findInLine(text, path);
    const rules = new Set<SecretRule>();
    for (const m of matches) {
      if (rules.has(m.rule)) continue;
      rules.add(m.rule);
      findings.push({ path, line, rule: m.rule, redactedPreview: preview(text, matches) });
    }
  }
  return findings;
}

/** `.env`-style files (but not `.env.example` and friends). */
export function isDotenvPath(path: string): boolean {
  const name = path.slice(path.lastIndexOf('/') + 1);
  return /^\.env(\..+)?$/.test(name) && !/\.(example|sample|template|dist|defaults)$/.test(name);
}

const decoder = new TextDecoder();

/** The added lines of a change, numbered as in the new file (the same bounded diff as the patch). */
export function addedLines(oldBytes: Uint8Array | undefined, newBytes: Uint8Array): { line: number; text: string }[] {
  const split = (b: Uint8Array) => (b.length === 0 ? [] : decoder.decode(b).replace(/\n$/, '').split('\n'));
  const a = oldBytes ? split(oldBytes) : [];
  const b = split(newBytes);
  const out: { line: number; text: string }[] = [];
  let n = 0;
  for (const change of diffLineArrays(a, b)) {
    if (change.removed) continue;
    for (const text of change.value) {
      n++;
      if (change.added) out.push({ line: n, text });
    }
  }
  return out;
}

export interface ScannedChange {
  path: string;
  /** Absent for an added file. */
  oldBytes?: Uint8Array;
  /** Absent for a deletion (nothing is added, nothing scanned). */
  newBytes?: Uint8Array;
}

/** Scan the added lines of a set of changes; an added `.env` file is a finding by itself. */
export function scanChanges(changes: ScannedChange[]): SecretFinding[] {
  const findings: SecretFinding[] = [];
  for (const c of changes) {
    if (!c.newBytes) continue;
    if (isDotenvPath(c.path) && !c.oldBytes) findings.push({ path: c.path, line: 1, rule: 'dotenv-file', redactedPreview: `${c.path} added` });
    if (isBinaryContent(c.newBytes)) continue;
    findings.push(...scanLines(c.path, addedLines(c.oldBytes, c.newBytes)));
  }
  return findings;
}

/**
 * Replace every secret-looking span in `text` with a redaction (`ghp_****`) before the text
 * goes anywhere a secret must not (model requests, logs). Findings name line and rule only.
 */
export function redactSecrets(text: string, path = '<text>'): { text: string; findings: SecretFinding[] } {
  const findings: SecretFinding[] = [];
  // Inside a private key block every line is key material, whatever it looks like.
  let inKey = false;
  const lines = text.split('\n').map((line, i) => {
    if (inKey) {
      if (PRIVATE_KEY_END.test(line)) inKey = false;
      return /^\s*$/.test(line) || !inKey ? line.replace(/^(Private-MAC:).*$/, '$1 ****') : '****';
    }
    const matches = findInLine(line, path);
    if (matches.length === 0) return line;
    const rules = new Set<SecretRule>();
    for (const m of matches) {
      if (m.rule === 'private-key') inKey = true;
      if (rules.has(m.rule)) continue;
      rules.add(m.rule);
      findings.push({ path, line: i + 1, rule: m.rule, redactedPreview: preview(line, matches) });
    }
    return redactLine(line, matches);
  });
  return { text: lines.join('\n'), findings };
}
