/**
 * @module summary/redact
 * Keeps secrets away from summarizers and out of summaries: API keys,
 * tokens, private keys and passwords. `redactSecrets` swaps them for stable
 * placeholders (`[[SECRET_1]]`) before any text leaves the process, and
 * `restoreSecrets` swaps them back in the answer; `withholdSecrets` replaces
 * them for good by a pointer to where the original is (`[redacted:seq:12]`),
 * for text that is kept.
 *
 * Over-redaction is harmless (the placeholder is restored to the exact
 * original text), under-redaction leaks, so the patterns lean generous. Every
 * quantifier is bounded and no pattern nests quantifiers, so a match attempt
 * does a bounded amount of work and a scan is linear in the text length.
 */

/**
 * Remembers which secret got which placeholder during one `summarize` call,
 * so the same secret gets the same placeholder in every request of that call.
 */
export interface SecretVault {
  /** Placeholder by secret. */
  readonly bySecret: Map<string, string>;
  /** Secret by placeholder. */
  readonly byPlaceholder: Map<string, string>;
  /** Placeholder-like text found in the input itself: never handed out, so restoring cannot turn it into a secret. */
  readonly reserved: Set<string>;
}

export function createSecretVault(): SecretVault {
  return { bySecret: new Map(), byPlaceholder: new Map(), reserved: new Set() };
}

interface SecretPattern {
  /** For tests and debugging; never the secret itself. */
  name: string;
  /** Global, with the `d` flag when it has a `secret` group. */
  regex: RegExp;
  /**
   * Text every match of `regex` contains: a text without it is not scanned with `regex`. Cheap
   * to test where `regex` is not (the scan of a text is most of a compaction's work).
   */
  hint?: RegExp;
}

const mayMatch = (pattern: SecretPattern, text: string): boolean =>
  pattern.hint === undefined || pattern.hint.test(text);

// The value part of `key = value` assignments: anything up to a delimiter.
const assignedValue = String.raw`[^\s"'\x60\\,;{}()<>\[\]]{6,512}`;
const secretKeyNames = [
  "api[_-]?key",
  "apikey",
  "secret(?:[_-]?(?:access[_-]?)?key)?",
  "client[_-]?secret",
  "access[_-]?token",
  "refresh[_-]?token",
  "auth[_-]?token",
  "session[_-]?token",
  "bearer[_-]?token",
  "token",
  "password",
  "passwd",
  "private[_-]?key",
].join("|");

/**
 * Every key name above ends in key, secret, token, password or passwd, and an assignment follows
 * it: an optional quote, up to 4 spaces, then `:` or `=`. A text without this holds no assignment.
 */
const SECRET_KEY_BEFORE_ASSIGNMENT = /(?:key|secret|token|passw(?:or)?d)\\?["']?\s{0,4}[:=]/i;

const patterns: SecretPattern[] = [
  {
    name: "pem-private-key",
    hint: /-----BEGIN /,
    regex:
      /-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY( BLOCK)?-----[\s\S]{0,16384}?-----END [A-Z0-9 ]{0,40}PRIVATE KEY( BLOCK)?-----/g,
  },
  {
    // A key block cut short (no END line): take the base64 lines that follow.
    name: "pem-private-key-truncated",
    hint: /-----BEGIN /,
    regex:
      /-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY( BLOCK)?-----(?:(?:\s|\\r|\\n){1,4}[A-Za-z0-9+/=:, -]{1,128}){0,512}/g,
  },
  {
    name: "jwt",
    hint: /eyJ/,
    regex: /\beyJ[A-Za-z0-9_-]{8,4096}\.eyJ[A-Za-z0-9_-]{8,8192}\.[A-Za-z0-9_-]{0,4096}/g,
  },
  // OpenAI (sk-, sk-proj-, sk-svcacct-, sk-admin-) and Anthropic (sk-ant-) keys.
  { name: "openai-anthropic-key", hint: /sk-/, regex: /\bsk-[A-Za-z0-9_-]{20,512}/g },
  { name: "stripe-key", regex: /\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{10,256}/g },
  { name: "stripe-webhook-secret", regex: /\bwhsec_[A-Za-z0-9]{16,256}/g },
  {
    name: "aws-access-key-id",
    regex: /\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA)[A-Z0-9]{16}\b/g,
  },
  {
    name: "aws-secret-access-key",
    hint: /secret/i,
    regex:
      /(?:aws_?secret_?access_?key|aws_?secret_?key|secret_?access_?key|SecretAccessKey)["']?\s{0,4}(?::|=|=>)\s{0,4}["']?(?<secret>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])/dgi,
  },
  { name: "github-token", regex: /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{30,255}/g },
  { name: "github-fine-grained-token", regex: /\bgithub_pat_[A-Za-z0-9_]{40,255}/g },
  { name: "slack-token", regex: /\bxox[abposr]-[A-Za-z0-9-]{10,255}/g },
  { name: "slack-webhook", regex: /https:\/\/hooks\.slack\.com\/services\/[A-Za-z0-9/]{16,128}/g },
  { name: "google-api-key", regex: /\bAIza[0-9A-Za-z_-]{35}/g },
  { name: "huggingface-token", regex: /\bhf_[A-Za-z0-9]{30,64}/g },
  { name: "npm-token", regex: /\bnpm_[A-Za-z0-9]{36}/g },
  {
    name: "authorization-header",
    hint: /authorization/i,
    regex:
      /\b(?:proxy-)?authorization["']?\s{0,4}[:=]\s{0,4}["']?(?:(?:bearer|basic|token|bot|digest)\s{1,4})?(?<secret>[A-Za-z0-9._~+/=-]{8,4096})/dgi,
  },
  {
    name: "bearer-token",
    hint: /bearer/i,
    regex: /\bbearer\s{1,4}(?<secret>[A-Za-z0-9._~+/-]{12,4096}=*)/dgi,
  },
  {
    // scheme://user:password@host: only the password goes.
    name: "url-password",
    hint: /:\/\//,
    regex: /\b[a-z][a-z0-9+.-]{1,20}:\/\/[^\s:/@"'<>]{1,256}:(?<secret>[^\s/@"'<>]{1,256})@/dgi,
  },
  {
    // "password": "two words", api_key='...': a quoted value may hold spaces.
    name: "secret-assignment-quoted",
    hint: SECRET_KEY_BEFORE_ASSIGNMENT,
    regex: new RegExp(
      String.raw`(?<![A-Za-z0-9])(?:[A-Za-z0-9]{1,30}[_-]){0,4}(?:${secretKeyNames})(?:\\?["'])?\s{0,4}(?::|=|=>)\s{0,4}\\?["'](?<secret>[^"'\\\r\n]{3,512})\\?["']`,
      "dgi",
    ),
  },
  {
    // api_key=..., OPENAI_API_KEY: ..., client-secret => ...
    name: "secret-assignment",
    hint: SECRET_KEY_BEFORE_ASSIGNMENT,
    regex: new RegExp(
      String.raw`(?<![A-Za-z0-9])(?:[A-Za-z0-9]{1,30}[_-]){0,4}(?:${secretKeyNames})(?:\\?["'])?\s{0,4}(?::|=|=>)\s{0,4}(?:\\?["'])?(?<secret>${assignedValue})`,
      "dgi",
    ),
  },
];

const placeholderPattern = /\[\[SECRET_(\d{1,6})\]\]/g;

function placeholderFor(secret: string, vault: SecretVault): string {
  const known = vault.bySecret.get(secret);
  if (known !== undefined) return known;
  let number = vault.bySecret.size + vault.reserved.size + 1;
  while (vault.reserved.has(`[[SECRET_${number}]]`)) number += 1;
  const placeholder = `[[SECRET_${number}]]`;
  vault.bySecret.set(secret, placeholder);
  // A later pattern's match may take in an earlier placeholder (`api_key=[[SECRET_1]]` inside a URL
  // password): store its original text, so one restoring pass puts back every secret.
  vault.byPlaceholder.set(placeholder, restoreSecrets(secret, vault));
  return placeholder;
}

function isPlaceholder(text: string): boolean {
  return /^\[\[SECRET_\d{1,6}\]\]$/.test(text);
}

function redactWith(text: string, pattern: SecretPattern, vault: SecretVault): string {
  if (!mayMatch(pattern, text)) return text;
  pattern.regex.lastIndex = 0;
  let out = "";
  let last = 0;
  for (const match of text.matchAll(pattern.regex)) {
    const whole = match.indices?.[0];
    const group = match.indices?.groups?.secret;
    const [start, end] = group ?? whole ?? [match.index, match.index + match[0].length];
    const secret = text.slice(start, end);
    if (secret === "" || isPlaceholder(secret)) continue;
    out += text.slice(last, start) + placeholderFor(secret, vault);
    last = end;
  }
  return last === 0 ? text : out + text.slice(last);
}

/**
 * Replaces every secret in `text` with its placeholder. The same secret gets
 * the same placeholder for the life of `vault`.
 */
export function redactSecrets(text: string, vault: SecretVault): string {
  for (const literal of text.match(placeholderPattern) ?? []) {
    if (!vault.byPlaceholder.has(literal)) vault.reserved.add(literal);
  }
  let out = text;
  for (const pattern of patterns) out = redactWith(out, pattern, vault);
  return out;
}

/** Puts the original secrets back where the summary mentions their placeholders. */
export function restoreSecrets(text: string, vault: SecretVault): string {
  if (vault.byPlaceholder.size === 0) return text;
  return text.replace(
    placeholderPattern,
    (placeholder) => vault.byPlaceholder.get(placeholder) ?? placeholder,
  );
}

/** A pointer left where a secret was withheld: `[redacted]` or `[redacted:<where>]`. */
const pointerPattern = /\[redacted(?::[^\]\s]{1,200})?\]/g;

/** The pointer that stands for a secret withheld from `where` (e.g. `tool-call:call_1`, `seq:12`). */
export function redactionPointer(where?: string): string {
  return where === undefined ? "[redacted]" : `[redacted:${where}]`;
}

/** Where in `text` secrets are: merged [start, end) spans, placeholders and pointers left out. */
function secretSpans(text: string): Array<[number, number]> {
  const found: Array<[number, number]> = [];
  for (const pattern of patterns) {
    if (!mayMatch(pattern, text)) continue;
    for (const match of text.matchAll(pattern.regex)) {
      const [start, end] = match.indices?.groups?.secret ??
        match.indices?.[0] ?? [match.index, match.index + match[0].length];
      if (end > start) found.push([start, end]);
    }
  }
  if (found.length === 0) return found;
  // Pointers and placeholders already in the text stay as they are.
  const kept = [...text.matchAll(pointerPattern), ...text.matchAll(placeholderPattern)].map(
    (match): [number, number] => [match.index, match.index + match[0].length],
  );
  const overlapsKept = (start: number, end: number) =>
    kept.some(([keptStart, keptEnd]) => start < keptEnd && keptStart < end);
  const spans = found.filter(([start, end]) => !overlapsKept(start, end));
  spans.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const merged: Array<[number, number]> = [];
  for (const span of spans) {
    const last = merged[merged.length - 1];
    if (last !== undefined && span[0] <= last[1]) last[1] = Math.max(last[1], span[1]);
    else merged.push([span[0], span[1]]);
  }
  return merged;
}

/**
 * Replaces every secret in `text` by `redactionPointer(where)`, for text that
 * is kept (a summary, a ledger): unlike `redactSecrets` nothing is restored
 * later; the original stays in the transcript, where the pointer says. Every
 * pattern runs on the original text, so no pattern sees another's pointer, and
 * pointers already in the text are left as they are.
 */
export function withholdSecrets(text: string, where?: string): string {
  const spans = secretSpans(text);
  if (spans.length === 0) return text;
  const pointer = redactionPointer(where);
  let out = "";
  let last = 0;
  for (const [start, end] of spans) {
    out += text.slice(last, start) + pointer;
    last = end;
  }
  return out + text.slice(last);
}

/** Whether `text` holds anything `withholdSecrets` would replace. */
export function containsSecret(text: string): boolean {
  return secretSpans(text).length > 0;
}
