/**
 * @module summary/identifiers
 * Finds the exact identifiers in free text that a summary must carry forward
 * verbatim: UUIDs, hex hashes, URLs, file paths, host names, IP addresses,
 * tool-call ids and other token-like ids.
 *
 * Linear time on any input: the text is cut into whitespace/quote-delimited
 * tokens by one simple regex, and every later test runs on a token of bounded
 * length with anchored, unambiguous patterns or plain loops. Tokens longer than
 * 4,096 characters (minified code, data blobs) are skipped, and runs of
 * base64-looking tokens are treated as one blob and skipped too.
 *
 * Rules (each documented where it is implemented):
 * - UUIDs anywhere in a token, also inside paths and URLs.
 * - Hex hashes: 7-128 hex characters of one case with at least one digit and
 *   one letter (`deadbeef` is a word, `1234567` a number, `1e10000` a float);
 *   hex parts joined by dashes, one a hash of 16+ characters, as a whole (a W3C
 *   trace context `00-0af7…319c-b7ad…3331-01`).
 * - URLs with scheme http(s), ws(s), ftp(s), sftp, ssh, git(+ssh/https), file,
 *   s3, gs; trailing `.,;:!?*` and unbalanced closing brackets are trimmed.
 * - File paths: absolute, `./`, `../`, `~/`, Windows (`C:\x`, `\\server\x`),
 *   relative ones that end in a known extension, have 3+ segments, or have 2
 *   segments one of which holds a digit or one of `._-` (so `and/or` is not a
 *   path); bare file names with a known extension (`package.json`), well-known
 *   extensionless names (`Makefile`) and dotfiles (`.env`). A `:line[:col]` or
 *   `#L12` suffix is dropped: `foo.py:123` yields `foo.py`, because files are
 *   what must survive and line numbers go stale with the next edit.
 * - Host names whose last label is a common TLD (`api.example.com`, with an
 *   optional port), IPv4 with optional port or prefix length, `[::1]:8080`,
 *   `localhost:8787`, e-mail addresses and scp-style `git@host:path`.
 * - Tool-call ids: `call_…`, `toolu_…`, `fc_…` containing a digit.
 * - Other ids (rules chosen to keep prose and code words out):
 *   a letters-only prefix, `_` or `-`, then a body of letters and digits that
 *   has both and is 6+ characters long or starts with a digit (`req_abc123`,
 *   `sess-9f8e7d`, `spotter-4te`; not `utf-8`, `int64`, `test_case_1`);
 *   tickets `ABC-123` (not `UTF-8`, `SHA-256`); `CVE-2024-12345`; ULIDs; and
 *   20-64 character alphanumeric runs that mix upper case, lower case and
 *   digits the way random ids do.
 *
 * The word lists these rules consult are `summary/identifier-vocabulary`'s;
 * trimming a token's ends and cutting it into pieces is `summary/token-edges`'.
 */

import {
  BARE_FILE_NAMES,
  CODE_RECEIVERS,
  DEVICE_PATHS,
  DOTFILE,
  FILE_EXTENSIONS,
  KNOWN_ROOTS,
  LIBRARY_NAMES,
  TICKET_PREFIX_STOPLIST,
  TLDS,
} from "./identifier-vocabulary.js";
import {
  countBrackets,
  splitAt,
  splitAtSeparators,
  TRAILING_NOISE,
  trimEdges,
  trimTrailing,
  trimUrl,
} from "./token-edges.js";

/** Whitespace, quotes, backticks and angle brackets end a token; everything else is inspected. */
const TOKEN = /[^\s"'`<>]+/g;
/** Longer tokens are minified code or data, never identifiers worth carrying. */
const MAX_TOKEN = 4096;
/** Longest token that is classified as a whole (URLs may be longer, up to MAX_TOKEN). */
const MAX_CLASSIFY = 512;

const URL_START = /(?:https?|wss?|ftps?|sftp|ssh|git(?:\+(?:ssh|https?))?|file|s3|gs):\/\//i;
const UUID_ANYWHERE =
  /[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}/g;
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const HEX = /^(?:[0-9a-f]{7,128}|[0-9A-F]{7,128})$/;
const FLOAT_LIKE = /^\d+[eE]\d+$/;
const TOOL_CALL_ID = /^(?:call|toolu|fc)_[A-Za-z0-9_-]{1,200}$/;

/** True for a tool-call id (`call_…`, `toolu_…`, `fc_…` with a digit). */
export function isToolCallId(text: string): boolean {
  return TOOL_CALL_ID.test(text) && HAS_DIGIT.test(text);
}
const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})(?::\d{1,5}|\/\d{1,2})?$/;
const IPV6_BRACKETED = /^\[[0-9A-Fa-f:.]{2,45}\](?::\d{1,5})?$/;
const LOCALHOST_PORT = /^localhost:\d{1,5}$/i;
const EMAIL = /^[A-Za-z0-9._%+-]{1,64}@([A-Za-z0-9.-]{1,253})$/;
const SCP = /^[A-Za-z0-9._-]{1,64}@([A-Za-z0-9.-]{1,253}):([A-Za-z0-9_.~/@+-]{1,400})$/;
const HOST_LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
const PORT = /^\d{1,5}$/;
/** A path segment: name characters, starting and ending like a name; `(group)` and `[id]` only as whole segments. */
const PATH_SEGMENT =
  /^(?:[A-Za-z0-9_.@+~%-](?:[A-Za-z0-9_.@+~%-]{0,253}[A-Za-z0-9_.@+~%])?|\([A-Za-z0-9_.-]{1,100}\)|\[[A-Za-z0-9_.-]{1,100}\])$/;
const WINDOWS_ROOT = /^(?:[A-Za-z]:[\\/]|\\\\[A-Za-z0-9][A-Za-z0-9.-]{1,62}\\)/;
/** `String.trim/1`, `with_span/2-3`: Elixir/Erlang arities, not paths. */
const ARITY = /^\d{1,3}(?:-\d{1,3})?$/;
const LINE_ANCHOR = /#L\d{1,7}(?:-L?\d{1,7})?$/;
const BARE_FILE = /^[A-Za-z0-9_@+~-][A-Za-z0-9_.@+~-]{0,254}$/;
const TICKET = /^([A-Z][A-Z0-9]{1,9})-\d{1,7}$/;
const CVE = /^CVE-\d{4}-\d{4,7}$/;
const PREFIXED_ID = /^[A-Za-z]{2,16}(?:[_-][A-Za-z]{2,16}){0,3}[_-]([A-Za-z0-9]{3,64})$/;
/** Bodies that are type names (`int64`) or CSS/units (`text-2xl`, `mt-10px`), not ids. */
const TYPE_LIKE_BODY =
  /^(?:(?:u?int|float|utf|sha|md|base|x|arm|amd|v|py|python|ipv|node|es|win|i|cp|iso|rfc|h|http|tls|gpt)\d+[a-z]?|\d+(?:x?[sml]|xl|px|em|rem|fr|vh|vw|st|nd|rd|th|ms|s|m|h|d|k|kb|mb|gb|tb|g|x))$/i;
const WORD_AND_COUNTER = /^[A-Za-z]+\d{1,2}$/;
/** `spotter-4te.3`: a sub-item of a prefixed id. */
const SUB_ITEM = /^(.+)\.\d{1,4}$/;
const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;
const ALNUM_RUN = /^[A-Za-z0-9]{20,64}$/;
const BASE64_CHARS = /^[A-Za-z0-9+/=_-]+$/;
const HAS_DIGIT = /\d/;
const HAS_LETTER = /[A-Za-z]/;

/** Collects ids in first-seen order without duplicates. */
type Sink = (id: string) => void;

/**
 * The exact identifiers in `text`, distinct, in first-seen order. Paths are
 * returned without a `:line` suffix; see the module documentation for the rules.
 */
export function extractIdentifiers(text: string): string[] {
  const seen = new Set<string>();
  const add: Sink = (id) => {
    if (id.length > 0) seen.add(id);
  };
  let inBlob = false;
  for (const match of text.matchAll(TOKEN)) {
    const token = match[0];
    // `</span>`: a closing tag, not the path `/span`.
    if (token.startsWith("/") && match.index > 0 && text.charAt(match.index - 1) === "<") continue;
    if (token.length > MAX_TOKEN) {
      inBlob = true;
      continue;
    }
    if (BASE64_CHARS.test(token)) {
      // A wrapped base64 blob: every line is one token; skip the whole run.
      if (inBlob || looksLikeBase64Blob(token)) {
        inBlob = true;
        continue;
      }
    } else {
      inBlob = false;
    }
    scanToken(token, add);
  }
  return [...seen];
}

/** Long, mixed-case (so not a hex hash), and switching between upper/lower/digit as often as random data does. */
function looksLikeBase64Blob(token: string): boolean {
  if (token.length < 40 || !/[a-z]/.test(token) || !/[A-Z]/.test(token)) return false;
  return classTransitions(token) * 4 >= token.length;
}

/** How often adjacent alphanumeric characters switch between upper case, lower case and digit. */
function classTransitions(text: string): number {
  let transitions = 0;
  let previous = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const kind =
      code >= 48 && code <= 57
        ? 1
        : code >= 65 && code <= 90
          ? 2
          : code >= 97 && code <= 122
            ? 3
            : 0;
    if (kind !== 0 && previous !== 0 && kind !== previous) transitions++;
    previous = kind;
  }
  return transitions;
}

/** A word of letters, maybe ending a sentence: what most tokens of prose and code are. */
const PLAIN_WORD = /^[A-Za-z]+[.,;:!?]*$/;
/** Operators and punctuation (`=`, `||`, `});`): no letter, no digit, no bracketed IPv6 address. */
const NO_NAME = /^[^A-Za-z0-9[]*$/;

function scanToken(token: string, add: Sink): void {
  // A plain word can only be an extensionless file name (`Makefile`); every other rule needs a
  // digit, a dot inside it or a separator. Most tokens are such words: this skips the rules.
  if (PLAIN_WORD.test(token)) {
    const word = trimTrailing(token, TRAILING_NOISE);
    if (BARE_FILE_NAMES.has(word)) add(word);
    return;
  }
  // Every rule but the bracketed IPv6 address needs a letter or a digit.
  if (NO_NAME.test(token)) return;
  const urlAt = token.search(URL_START);
  if (urlAt >= 0) {
    if (urlAt > 0) scanPlain(token.slice(0, urlAt), add);
    scanUrl(token.slice(urlAt), add);
    return;
  }
  if (token.length > MAX_CLASSIFY) return;
  scanPlain(token, add);
  addUuids(token, add);
}

function scanUrl(text: string, add: Sink): void {
  // A Markdown link whose text is itself a URL: `[https://a](https://a)`.
  const linkBreak = text.indexOf("](");
  const head = linkBreak >= 0 ? text.slice(0, linkBreak) : text;
  const url = trimUrl(head);
  const afterScheme = url.indexOf("://") + 3;
  const hasHost = afterScheme < url.length && (url[afterScheme] !== "/" || url.startsWith("file:"));
  if (hasHost && url.length > afterScheme) {
    add(url);
    addUuids(url, add);
  }
  if (linkBreak >= 0) scanToken(text.slice(linkBreak + 2), add);
}

function addUuids(text: string, add: Sink): void {
  if (text.length < 36) return;
  for (const match of text.matchAll(UUID_ANYWHERE)) add(match[0]);
}

/** A token without a URL: classify it whole, else its pieces split at code punctuation, else at `:`/`@`/`..`. */
function scanPlain(token: string, add: Sink): void {
  const bracketed = trimTrailing(token, ".,;");
  if (IPV6_BRACKETED.test(bracketed) && bracketed.includes(":")) {
    add(bracketed);
    return;
  }
  const whole = trimEdges(token);
  if (whole.length === 0) return;
  const id = classify(whole, WHOLE);
  if (id !== undefined) {
    add(id);
    return;
  }
  for (const piece of splitAt(whole, "()[]{},;=|&!?*$^")) {
    const part = trimEdges(piece.text);
    if (part.length === 0) continue;
    if (part !== whole) {
      const partId = classify(part, piece.next === "(" ? CALL_PIECE : PIECE);
      if (partId !== undefined) {
        add(partId);
        continue;
      }
    }
    for (const sub of splitAtSeparators(part)) {
      const subPart = trimEdges(sub);
      if (subPart.length === 0 || subPart === part) continue;
      const subId = classify(subPart, PIECE);
      if (subId !== undefined) add(subId);
    }
  }
}

/** Where a string to classify came from. */
interface Origin {
  /** Followed by `(` (`res.json(`): code, not a file or host. */
  call: boolean;
  /** Cut out of a larger token (`a)/(b`): lone `/x` there is division or a sed address, not a path. */
  piece: boolean;
}

const WHOLE: Origin = { call: false, piece: false };
const PIECE: Origin = { call: false, piece: true };
const CALL_PIECE: Origin = { call: true, piece: true };

/** The identifier a trimmed token stands for, or undefined. */
function classify(text: string, origin: Origin): string | undefined {
  if (TOOL_CALL_ID.test(text) && HAS_DIGIT.test(text)) return text;
  if (UUID.test(text)) return text;
  if (isHexId(text) || isDashedHexId(text)) return text;
  if (isIpv4(text)) return text;
  if (LOCALHOST_PORT.test(text)) return text;
  if (text.includes("@")) return classifyWithAt(text);
  const path = asPath(text, origin);
  if (path !== undefined) return path;
  if (!origin.call && isHost(text)) return text;
  if (isOtherId(text)) return text;
  return undefined;
}

function isHexId(text: string): boolean {
  return HEX.test(text) && HAS_DIGIT.test(text) && /[a-fA-F]/.test(text) && !FLOAT_LIKE.test(text);
}

/** Hex parts joined by dashes (a W3C trace context `00-<trace id>-<span id>-01`). */
const DASHED_HEX = /^[0-9a-fA-F]{1,128}(?:-[0-9a-fA-F]{1,128}){1,7}$/;
/** The part that makes it an id: a hash of 16 hex characters or more. */
const LONG_HEX = /^[0-9a-fA-F]{16,128}$/;

/** Hex parts joined by dashes, one a hash of 16+ characters: the whole is the identifier. */
function isDashedHexId(text: string): boolean {
  if (text.length > 300 || !DASHED_HEX.test(text)) return false;
  return text.split("-").some((part) => LONG_HEX.test(part) && isHexId(part));
}

function isIpv4(text: string): boolean {
  const match = IPV4.exec(text);
  if (match === null) return false;
  for (let i = 1; i <= 4; i++) if (Number(match[i]) > 255) return false;
  return true;
}

/** E-mail addresses and `git@host:path`; else a path with `@` in it (`node_modules/@types/node`, `owner/repo@sha`). */
function classifyWithAt(text: string): string | undefined {
  const email = EMAIL.exec(text);
  if (email?.[1] !== undefined && isHost(email[1])) return text;
  const scp = SCP.exec(text);
  if (scp?.[1] !== undefined && isHost(scp[1])) return text;
  return text.includes("/") ? asPath(text, WHOLE) : undefined;
}

/** Host names: 2+ DNS labels ending in a known TLD, optionally with a port. */
function isHost(text: string): boolean {
  // Two labels at least: no dot, no host (the common case, decided before any copy is made).
  if (!text.includes(".")) return false;
  let host = text;
  const colon = text.lastIndexOf(":");
  if (colon >= 0) {
    if (!PORT.test(text.slice(colon + 1))) return false;
    host = text.slice(0, colon);
  }
  if (host.length < 4 || host.length > 253) return false;
  const labels = host.split(".");
  if (labels.length < 2) return false;
  const tld = labels[labels.length - 1] ?? "";
  if (!TLDS.has(tld) || CODE_RECEIVERS.has((labels[0] ?? "").toLowerCase())) return false;
  for (const label of labels) if (!HOST_LABEL.test(label)) return false;
  // `e.io` in minified code: demand a real second-level label.
  const second = labels[labels.length - 2] ?? "";
  return second.length >= 2 || labels.length >= 3;
}

/** Removes a trailing `:12`, `:12:5`, `:12-20` or `#L12-L20`. */
function stripLineSuffix(text: string): string {
  const anchor = LINE_ANCHOR.exec(text);
  if (anchor !== null) return text.slice(0, anchor.index);
  let end = text.length;
  for (let groups = 0; groups < 3; groups++) {
    let digits = end;
    while (digits > 0 && isDigitCode(text.charCodeAt(digits - 1))) digits--;
    if (digits === end || digits === 0) break;
    const sep = text.charAt(digits - 1);
    if (sep === ":") {
      end = digits - 1;
      continue;
    }
    if (sep === "-" && groups === 0) {
      // `:12-20`: look for the `:12` before the dash.
      const before = digits - 1;
      let d = before;
      while (d > 0 && isDigitCode(text.charCodeAt(d - 1))) d--;
      if (d < before && d > 0 && text.charAt(d - 1) === ":") {
        end = d - 1;
        continue;
      }
    }
    break;
  }
  return text.slice(0, end);
}

function isDigitCode(code: number): boolean {
  return code >= 48 && code <= 57;
}

/** The file path `text` names (without a line suffix), or undefined. */
function asPath(text: string, origin: Origin): string | undefined {
  const base = stripLineSuffix(text);
  if (base.length < 2) return undefined;
  if (WINDOWS_ROOT.test(base)) return isWindowsPath(base) ? base : undefined;
  if (base.includes("/")) return isSlashPath(base, origin.piece) ? base : undefined;
  if (origin.call) return undefined;
  return isBareFile(base) ? base : undefined;
}

/** `C:\\x\\y` or `\\\\server\\share`; a lower-case drive or a UNC path needs two segments (`e:\\n` is an escape). */
function isWindowsPath(path: string): boolean {
  const unc = path.startsWith("\\\\");
  const rest = unc ? path.slice(2) : path.slice(3);
  const segments = rest.split(/[\\/]+/).filter((segment) => segment.length > 0);
  const lowerDrive = !unc && path.charAt(0) !== path.charAt(0).toUpperCase();
  if (segments.length < (unc || lowerDrive ? 2 : 1)) return false;
  return segments.every((segment) => PATH_SEGMENT.test(segment)) && HAS_LETTER.test(rest);
}

function isSlashPath(path: string, piece: boolean): boolean {
  if (DEVICE_PATHS.has(path) || !HAS_LETTER.test(path)) return false;
  const counts = countBrackets(path);
  if (counts["("] !== counts[")"] || counts["["] !== counts["]"]) return false;
  let body = path;
  let anchored = false;
  if (body.startsWith("/")) {
    body = body.slice(1);
    anchored = true;
  } else if (body.startsWith("./") || body.startsWith("~/")) {
    body = body.slice(2);
    anchored = true;
  } else if (body.startsWith("../")) {
    while (body.startsWith("../")) body = body.slice(3);
    anchored = true;
  }
  const trailingSlash = body.endsWith("/");
  if (trailingSlash) body = body.slice(0, -1);
  if (body.length === 0) return false;
  const segments = body.split("/");
  for (const segment of segments) if (!PATH_SEGMENT.test(segment)) return false;
  const first = segments[0] ?? "";
  const last = segments[segments.length - 1] ?? "";
  if (anchored) {
    if (!path.startsWith("/") || segments.length > 1) return true;
    // `/s`, `/g` (regex flags, sed) and `)/(x` (division) are not paths; `/tmp` is.
    return first.length >= 2 && !piece;
  }
  // `s/old/new/g` is a sed expression, `--a/--b` a list of flags.
  if (first === "s" || first === "y" || segments.some((segment) => segment.startsWith("-")))
    return false;
  if (segments.length === 1) return trailingSlash && first.startsWith(".") && first.length > 1;
  if (hasKnownExtension(last)) return true;
  if (trailingSlash) return true;
  if (ARITY.test(last)) return false;
  // `@scope/pkg`, `owner/repo@ref`.
  if (KNOWN_ROOTS.has(first) || path.includes("@")) return true;
  // Prose alternatives (`read/write`, `mount/handle_params`) and code (`n1/n2`) have neither.
  return segments.some((segment) => /[.-]/.test(segment));
}

function extensionOf(name: string): string | undefined {
  const dot = name.lastIndexOf(".");
  if (dot <= 0 || dot === name.length - 1) return undefined;
  return name.slice(dot + 1);
}

function hasKnownExtension(name: string): boolean {
  const extension = extensionOf(name);
  return extension !== undefined && FILE_EXTENSIONS.has(extension.toLowerCase());
}

function isBareFile(name: string): boolean {
  if (BARE_FILE_NAMES.has(name)) return true;
  if (name.startsWith(".")) return DOTFILE.test(name);
  if (!BARE_FILE.test(name) || !hasKnownExtension(name)) return false;
  const stem = name.slice(0, name.lastIndexOf("."));
  if (stem.length < 2 || !/[A-Za-z0-9]/.test(stem)) return false;
  if (CODE_RECEIVERS.has(stem.toLowerCase())) return false;
  return !LIBRARY_NAMES.has(name.toLowerCase());
}

function isOtherId(text: string): boolean {
  const sub = SUB_ITEM.exec(text);
  if (sub?.[1] !== undefined) return isPrefixedId(sub[1]);
  const ticket = TICKET.exec(text);
  if (ticket?.[1] !== undefined) return !TICKET_PREFIX_STOPLIST.has(ticket[1]);
  if (CVE.test(text)) return true;
  if (PREFIXED_ID.test(text)) return isPrefixedId(text);
  if (ULID.test(text)) return HAS_DIGIT.test(text) && HAS_LETTER.test(text);
  if (ALNUM_RUN.test(text)) {
    const digits = text.replace(/\D/g, "").length;
    return (
      /[a-z]/.test(text) &&
      /[A-Z]/.test(text) &&
      digits >= 2 &&
      classTransitions(text) * 3 >= text.length
    );
  }
  return false;
}

function isPrefixedId(text: string): boolean {
  const body = PREFIXED_ID.exec(text)?.[1];
  if (body === undefined) return false;
  if (!HAS_DIGIT.test(body) || !HAS_LETTER.test(body) || TYPE_LIKE_BODY.test(body)) return false;
  // `field2`, `test12`: a word and a counter, as in variable names.
  if (WORD_AND_COUNTER.test(body)) return false;
  return body.length >= 6 || isDigitCode(body.charCodeAt(0));
}
