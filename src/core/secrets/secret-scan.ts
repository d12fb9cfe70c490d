import type { PathRules } from '../paths/path-rules.js';
import { isBinaryContent } from '../objects/object-format.js';
import { diffLineArrays } from '../text/line-diff.js';
import {
  blankNotSecret,
  isDummyUrlPassword,
  isDummyValue,
  mayBeRandomSecret,
  PLACEHOLDER,
  PUBLIC_BLOCK_BEGIN,
  PUBLIC_BLOCK_END,
} from './secret-rules/not-secret.js';
import { PRIVATE_KEY_END, TOKEN_FORMATS, type TokenRule } from './secret-rules/token-formats.js';

export type SecretRule = TokenRule | 'aws-secret-access-key' | 'url-credentials' | 'dotenv-file' | 'password-assignment' | 'high-entropy-string';

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

/**
 * Long lines are scanned in windows of this many characters, overlapping by `WINDOW_OVERLAP`
 * (more than any pattern's longest match), so every pattern runs on bounded input and a whole
 * line is scanned, however long: its cost is bounded by the file-size limit.
 */
export const SCAN_WINDOW = 20_000;
const WINDOW_OVERLAP = 2_048;

const TWILIO_TOKEN = /twilio[\w.-]{0,32}?(?:auth)?[_.-]?token["']?\s*[:=]\s*["']?([a-f0-9]{32})\b/dgi;
/** `.npmrc` `_auth` (base64 of user:password), `_authToken` and `_password`, possibly scoped to a registry. */
const NPM_AUTH = /(?:^|[\s:])_(?:auth|authToken|password)\s*=\s*["']?([A-Za-z0-9+/=_.-]{8,512})/dg;
/** A password inside a URL's userinfo (`scheme://user:password@host`); a URL with a user only has none. */
const URL_CREDENTIALS = /\b[a-z][a-z0-9+.-]{0,31}:\/\/[^\s:@/"'<>]{0,256}:([^\s@/"'<>]{1,256})@[^\s/"'<>]/dgi;

// Repetitions are bounded so that no pattern can cost more than linear time on a long line.
const AWS_SECRET = /(?:aws|secret_access|secretaccess)[\w.-]{0,64}["']?\s*[:=]\s*["']?([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])/gi;
/**
 * A secret-named key (`password`, `SECRET_KEY`, `jwtSecret`, `client_secret`, `MAPS_API_KEY`…)
 * assigned a value: quoted (anything but the quote) or bare (up to a separator).
 */
const PASSWORD_KEY =
  /(?:^|[^A-Za-z0-9_])([A-Za-z0-9_.-]{0,64}?(?:password|passwd|pwd|secret|api[_-]?key|apikey|access[_-]?token|auth[_-]?token|client[_-]?secret|private[_-]?key)(?:[_-]?key)?)["']?\s*(?::=|[:=])\s*(?:"([^"\n]{4,512})"|'([^'\n]{4,512})'|([^\s"'#,;]{4,512}))/gi;
/** An environment-variable name or a bare word: what code assigns to a secret-named key when it names, not holds, the secret. */
const NAME_NOT_VALUE = /^(?:[A-Z][A-Z0-9_]*|[A-Za-z]+)$/;
/** A run of base64/base64url characters; `=` only as padding, so `key=value` splits. */
const TOKEN = /[A-Za-z0-9+/_-]{20,}={0,2}/g;

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

/** What the scan asks the run's path rules about a file. */
export type SecretPathRules = Pick<PathRules, 'isLockfile' | 'isDoc' | 'isTest' | 'isConfig'>;

/**
 * How the scan weighs a file's lines. `quiet`: lockfiles are generated and documentation shows
 * examples, so only credential formats count there. `config`: a bare value can be the secret.
 * `test`: a secret-named key holds a fixed test value unless the value looks random.
 */
export interface SecretFileKinds {
  quiet: boolean;
  config: boolean;
  test: boolean;
}

/** A text that is no file of the repository (a prompt, a log): every rule applies as to source. */
const PLAIN_TEXT: SecretFileKinds = { quiet: false, config: false, test: false };

/** The file kinds of `path`, asked of the path rules; a path they refuse to judge is plain text. */
export function secretFileKinds(path: string, rules: SecretPathRules): SecretFileKinds {
  try {
    return { quiet: rules.isLockfile(path) || rules.isDoc(path), config: rules.isConfig(path), test: rules.isTest(path) };
  } catch {
    return PLAIN_TEXT;
  }
}

/** A long base64-ish token that looks random: mixed case and digits, high entropy, not a digest or an id. */
function highEntropy(token: string): boolean {
  if (!mayBeRandomSecret(token)) return false;
  if (!/[0-9]/.test(token) || !/[a-z]/.test(token) || !/[A-Z]/.test(token)) return false;
  return shannonEntropy(token) >= 4.3;
}

/**
 * Where a private key that starts on this line ends: at its END marker when the block is written
 * on one line (JSON's `\\n`-escaped service-account keys), else at the end of the line.
 */
function keyBlockEnd(line: string, from: number): number {
  const end = PRIVATE_KEY_END.exec(line.slice(from));
  return end ? from + end.index + end[0].length : line.length;
}

function tokenFormatMatches(line: string, examples: boolean): Match[] {
  const out: Match[] = [];
  for (const p of TOKEN_FORMATS) {
    for (const m of line.matchAll(p.re)) {
      if (p.rule !== 'private-key' && isDummyValue(m[0].slice(p.keep), examples)) continue;
      out.push({
        rule: p.rule,
        start: m.index,
        end: p.rule === 'private-key' ? keyBlockEnd(line, m.index + m[0].length) : m.index + m[0].length,
        keep: p.keep,
      });
    }
  }
  for (const m of line.matchAll(AWS_SECRET)) {
    if (isDummyValue(m[1], examples)) continue;
    const start = m.index + m[0].length - m[1].length;
    out.push({ rule: 'aws-secret-access-key', start, end: start + m[1].length, keep: 0 });
  }
  // Patterns whose secret is group 1 (the `d` flag gives its exact span).
  for (const [rule, re] of [
    ['twilio-key', TWILIO_TOKEN],
    ['npm-auth', NPM_AUTH],
    ['url-credentials', URL_CREDENTIALS],
  ] as const) {
    for (const m of line.matchAll(re)) {
      if (rule === 'url-credentials' ? isDummyUrlPassword(m[1]) : isDummyValue(m[1])) continue;
      const [start, end] = m.indices![1]!;
      out.push({ rule, start, end, keep: 0 });
    }
  }
  return out;
}

/** Whether a value assigned to a secret-named key is taken for the secret itself. */
function isAssignedSecret(value: string, quoted: boolean, kinds: SecretFileKinds): boolean {
  if (isDummyValue(value) || PLACEHOLDER.test(value.trim())) return false;
  // A name (`secret: config`, `password = "DB_PASSWORD"`) is not the secret; in config a long word may still be one.
  const name = NAME_NOT_VALUE.test(value);
  if (kinds.config ? name && value.length < 12 : !(quoted && value.length >= 6 && !/\s/.test(value) && !name)) return false;
  return !kinds.test || highEntropy(value);
}

function passwordMatches(line: string, kinds: SecretFileKinds): Match[] {
  const out: Match[] = [];
  for (const m of line.matchAll(PASSWORD_KEY)) {
    const value = m[2] ?? m[3] ?? m[4];
    if (!isAssignedSecret(value, m[4] === undefined, kinds)) continue;
    const start = m.index + m[0].lastIndexOf(value);
    out.push({ rule: 'password-assignment', start, end: start + value.length, keep: 0 });
  }
  return out;
}

/** Random-looking tokens no other match covers. */
function entropyMatches(line: string, found: readonly Match[]): Match[] {
  const out: Match[] = [];
  for (const m of blankNotSecret(line).matchAll(TOKEN)) {
    const start = m.index;
    const end = start + m[0].length;
    if (found.some((o) => o.start < end && start < o.end)) continue;
    if (highEntropy(m[0])) out.push({ rule: 'high-entropy-string', start, end, keep: 0 });
  }
  return out;
}

/**
 * `publicBlock`: the line is inside a public key or certificate block, whose base64 is no secret.
 * `examples`: documented example keys are not findings (the scan) or are hidden anyway (redaction).
 */
function findInLine(full: string, kinds: SecretFileKinds, publicBlock = false, examples = true): Match[] {
  if (full.length <= SCAN_WINDOW) return findInWindow(full, kinds, publicBlock, examples);
  const step = SCAN_WINDOW - WINDOW_OVERLAP;
  const out: Match[] = [];
  for (let from = 0; from < full.length; from += step) {
    const last = from + SCAN_WINDOW >= full.length;
    for (const m of findInWindow(full.slice(from, from + SCAN_WINDOW), kinds, publicBlock, examples)) {
      // A match starting in the overlap is found again, whole, by the next window.
      if (!last && m.start >= step) continue;
      out.push({ ...m, start: m.start + from, end: m.end + from });
    }
    if (last) break;
  }
  return out.sort((a, b) => a.start - b.start);
}

function findInWindow(line: string, kinds: SecretFileKinds, publicBlock: boolean, examples: boolean): Match[] {
  const out = tokenFormatMatches(line, examples);
  if (!kinds.quiet && !publicBlock) {
    out.push(...passwordMatches(line, kinds));
    out.push(...entropyMatches(line, out));
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

/** A finding in words, the way every refusal names it: rule, file and line, never the value. */
export function describeFinding(f: { rule: string; path?: string; line?: number }): string {
  return f.path ? `${f.rule} at ${f.path}${f.line ? `:${f.line}` : ''}` : f.rule;
}

/** Up to `limit` findings in words, and how many more. */
export function describeFindings(findings: readonly { rule: string; path?: string; line?: number }[], limit = 5): string {
  const shown = findings.slice(0, limit).map(describeFinding).join(', ');
  return findings.length > limit ? `${shown} and ${findings.length - limit} more` : shown;
}

/** Scan given lines (with their 1-based numbers) of one file; `rules` say what kind of file it is. */
export function scanLines(path: string, lines: { line: number; text: string }[], rules: SecretPathRules): SecretFinding[] {
  const kinds = secretFileKinds(path, rules);
  const findings: SecretFinding[] = [];
  let inPublic = false;
  let previous = 0;
  for (const { line, text } of lines) {
    // A block is only followed through consecutive added lines.
    if (line !== previous + 1) inPublic = false;
    previous = line;
    if (PUBLIC_BLOCK_BEGIN.test(text)) inPublic = true;
    const matches = findInLine(text, kinds, inPublic);
    if (PUBLIC_BLOCK_END.test(text)) inPublic = false;
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
  const split = (b: Uint8Array) => (b.length === 0 ? [] : scanText(b).replace(/\n$/, '').split('\n'));
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

/** How many leading bytes decide whether NUL bytes mean UTF-16. */
const UTF16_SAMPLE = 4096;

/**
 * The text a scan reads in a file's bytes. A NUL byte hides nothing: UTF-16 (a byte-order mark,
 * or NULs in every other byte of the sample) is decoded as such; any other content with a NUL
 * is read as its runs of printable characters, one per line, as `strings` would show them.
 */
export function scanText(bytes: Uint8Array): string {
  if (!isBinaryContent(bytes)) return decoder.decode(bytes);
  const utf16 = utf16Of(bytes);
  if (utf16) return new TextDecoder(utf16).decode(bytes);
  return new TextDecoder('latin1').decode(bytes).replace(/[^\t\x20-\x7e]+/g, '\n');
}

function utf16Of(bytes: Uint8Array): 'utf-16le' | 'utf-16be' | undefined {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  const n = Math.min(bytes.length, UTF16_SAMPLE) & ~1;
  let even = 0;
  let odd = 0;
  for (let i = 0; i < n; i += 2) {
    if (bytes[i] === 0) even++;
    if (bytes[i + 1] === 0) odd++;
  }
  const pairs = n / 2;
  if (pairs === 0) return undefined;
  if (odd > pairs * 0.4 && even < pairs * 0.05) return 'utf-16le';
  if (even > pairs * 0.4 && odd < pairs * 0.05) return 'utf-16be';
  return undefined;
}

export interface ScannedChange {
  path: string;
  /** Absent for an added file. */
  oldBytes?: Uint8Array;
  /** Absent for a deletion (nothing is added, nothing scanned). */
  newBytes?: Uint8Array;
}

/** Scan the added lines of a set of changes; an added `.env` file is a finding by itself. */
export function scanChanges(changes: ScannedChange[], rules: SecretPathRules): SecretFinding[] {
  const findings: SecretFinding[] = [];
  for (const c of changes) {
    if (!c.newBytes) continue;
    if (isDotenvPath(c.path) && !c.oldBytes) findings.push({ path: c.path, line: 1, rule: 'dotenv-file', redactedPreview: `${c.path} added` });
    findings.push(...scanLines(c.path, addedLines(c.oldBytes, c.newBytes), rules));
  }
  return findings;
}

/**
 * Replace every secret-looking span in `text` with a redaction (`ghp_****`) before the text
 * goes anywhere a secret must not (model requests, logs). Findings name line and rule only.
 * `file`: the repository file the text is, weighed by its kind; absent, the text is no file.
 */
export function redactSecrets(text: string, file?: { path: string; rules: SecretPathRules }): { text: string; findings: SecretFinding[] } {
  const path = file?.path ?? '<text>';
  const kinds = file ? secretFileKinds(file.path, file.rules) : PLAIN_TEXT;
  const findings: SecretFinding[] = [];
  // Inside a private key block every line is key material, whatever it looks like.
  let inKey = false;
  const lines = text.split('\n').map((line, i) => {
    if (inKey) {
      if (PRIVATE_KEY_END.test(line)) inKey = false;
      return /^\s*$/.test(line) || !inKey ? line.replace(/^(Private-MAC:).*$/, '$1 ****') : '****';
    }
    const matches = findInLine(line, kinds, false, false);
    if (matches.length === 0) return line;
    const rules = new Set<SecretRule>();
    for (const m of matches) {
      if (m.rule === 'private-key' && !PRIVATE_KEY_END.test(line.slice(m.start))) inKey = true;
      if (rules.has(m.rule)) continue;
      rules.add(m.rule);
      findings.push({ path, line: i + 1, rule: m.rule, redactedPreview: preview(line, matches) });
    }
    return redactLine(line, matches);
  });
  return { text: lines.join('\n'), findings };
}
