/**
 * What looks like a secret but is not one. Each exemption names a kind of text that real
 * repositories are full of (measured on the real-commit corpus under
 * `test/fixtures/secret-corpus/`): digests and checksums, commit SHAs, URLs, XML namespaces,
 * integrity fields, inline images, placeholders and documented example keys.
 */

/**
 * Values that stand for a secret instead of being one: references (`${VAR}`, `{{ secrets.X }}`,
 * environment lookups in code), template holes (`<your-token>`), fillers (`xxx`, `***`, `...`) and words.
 */
export const PLACEHOLDER =
  /^(\$\{.*\}|\$\(.*\)|\$[A-Za-z_]\w*|<.*>|\{\{.*\}\}|%\(.*\)s|%[sv]|x+|X+|\*+|\.\.\.|…|changeme|change_me|example|placeholder|redacted|null|nil|none|true|false|undefined|your[_-].*|process\.env\..*|os\.environ.*|os\.getenv.*|env\(.*|secrets\..*|vault:.*)$/i;

/**
 * Documentation examples. AWS publishes `AKIAIOSFODNN7EXAMPLE` and its secret key (ending
 * `EXAMPLEKEY`) as keys that never work, and other vendors follow suit: a value containing
 * `EXAMPLE` is a documentation example and is not reported, so a docs change quoting one publishes.
 */
const DOC_EXAMPLE = /EXAMPLE/i;

/** Documented sample values with no `EXAMPLE` in them: the signature of jwt.io's sample token. */
const DOC_SAMPLES = ['SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c'];

/** Fillers inside an otherwise well-formed token (`ghp_xxxx…`, `sk_live_0000…`, `<…>`). */
const FILLER = /(.)\1{5,}|[xX*]{4,}|[<>{}]|\.\.\./;

/**
 * True when a token-shaped value is a placeholder or a documented example, not an issued
 * credential. `examples: false` still counts documented examples as secrets (redaction before a
 * model request hides them too: it costs nothing there).
 */
export function isDummyValue(value: string, examples = true): boolean {
  return PLACEHOLDER.test(value) || (examples && (DOC_EXAMPLE.test(value) || DOC_SAMPLES.some((s) => value.includes(s)))) || FILLER.test(value);
}

/**
 * Passwords in URLs that are conventions, not secrets: GitHub's `x-oauth-basic` (the token, if
 * any, is the user part and is found by its own format) and the classic stand-ins of tests and docs.
 */
const DUMMY_URL_PASSWORD =
  /^(x-oauth-basic|hunter2|password|passwd|pass|pwd|secret|s3cr3t|test|testing|foo|bar|baz|admin|root|guest|user|changeme|example|token)$/i;

export function isDummyUrlPassword(value: string): boolean {
  return isDummyValue(value) || DUMMY_URL_PASSWORD.test(value);
}

/**
 * Spans the generic high-entropy rule never looks at (blanked before tokenising):
 * - integrity and digest fields: SRI `sha512-<base64>`, `+sha512.<hex>` (`packageManager`),
 *   `sha256:<hex>` image digests, go.sum `h1:<base64>`;
 * - inline images and fonts (`data:image/png;base64,…`);
 * - URLs up to their query: paths (XML namespaces, schema locations, blob/commit links) are not
 *   secrets; a query may hold one and stays scanned.
 */
const NOT_SECRET_SPANS = [
  /\b(?:sha1|sha224|sha256|sha384|sha512|md5|h1)[-:.][A-Za-z0-9+/=_-]{8,1024}/gi,
  /\bdata:[\w/+.-]{1,64}(?:;[\w=-]{1,64})*;base64,[A-Za-z0-9+/=]{0,1000000}/gi,
  /\b[a-z][a-z0-9+.-]{0,31}:\/\/[^\s"'<>?#]{0,2048}/gi,
];

/** The line with every not-secret span blanked (same length, so positions still hold). */
export function blankNotSecret(line: string): string {
  let out = line;
  for (const re of NOT_SECRET_SPANS) out = out.replace(re, (s) => ' '.repeat(s.length));
  return out;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const HEX = /^[0-9a-fA-F]+$/;

/**
 * A token the generic rule may judge on entropy. Hex alone never is: commit SHAs, checksums and
 * digests are hex, and hex credentials are found by their formats or their secret-named keys.
 */
export function mayBeRandomSecret(token: string): boolean {
  return !UUID.test(token) && !HEX.test(token) && !MIXED_ALPHABETS.test(token) && !isDummyValue(token);
}

/**
 * `/` (standard base64) next to `-` or `_` (base64url): two alphabets no encoder mixes, so this is
 * a path or a name (`$REPO_URL/io/takari/maven-wrapper/0`), not an encoded secret.
 */
const MIXED_ALPHABETS = /\/.*[-_]|[-_].*\//;

/** The first and last lines of blocks that are public by design (public keys, certificates). */
export const PUBLIC_BLOCK_BEGIN = /-----BEGIN (?:[A-Z0-9]+ )*(?:PUBLIC KEY(?: BLOCK)?|CERTIFICATE)-----/;
export const PUBLIC_BLOCK_END = /-----END (?:[A-Z0-9]+ )*(?:PUBLIC KEY(?: BLOCK)?|CERTIFICATE)-----/;
