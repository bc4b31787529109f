/**
 * @module scripts/build-rank-data
 * Writes `src/tokens/rank-data/*.ts` (git-ignored): o200k_base and cl100k_base in the compact
 * form of `src/tokens/rank-coding.ts` (written by `rank-encoding.ts`), built from js-tiktoken's rank data, which stays the
 * source of truth. Each output is checked by decoding it again before it is written.
 *
 * Runs before `build`, `typecheck`, `test` and `bench` (see package.json), so a clean clone
 * works whatever turbo runs first. It does nothing when the outputs are current (same
 * js-tiktoken version and the same coding and script sources), and writes each file
 * atomically, so concurrent runs are harmless.
 *
 *   node --import tsx scripts/build-rank-data.ts [--force]   (tsx: rank-coding.ts imports `.js` paths)
 */

import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import cl100kBase from "js-tiktoken/ranks/cl100k_base";
import o200kBase from "js-tiktoken/ranks/o200k_base";
import { decodeRanks, type EncodedRanks } from "../src/tokens/rank-coding.ts";
import { encodeRanks } from "../src/tokens/rank-encoding.ts";

interface TiktokenRanks {
  pat_str: string;
  bpe_ranks: string;
}

const here = dirname(fileURLToPath(import.meta.url));
const outputDir = join(here, "../src/tokens/rank-data");
// The modules that write and read the compact form: a change to any of them rewrites the outputs.
const codingSources = ["rank-coding.ts", "rank-encoding.ts", "coded-numbers.ts"].map((name) =>
  join(here, "../src/tokens", name),
);
// js-tiktoken exports no package.json: find it above its entry point.
const tiktokenPackage = join(dirname(fileURLToPath(import.meta.resolve("js-tiktoken"))), "..");
const tiktokenVersion = (
  JSON.parse(readFileSync(join(tiktokenPackage, "package.json"), "utf8")) as { version: string }
).version;

// The outputs depend on the rank data itself and on how it is coded.
const stamp = createHash("sha256")
  .update(JSON.stringify([o200kBase.pat_str, o200kBase.bpe_ranks]))
  .update(JSON.stringify([cl100kBase.pat_str, cl100kBase.bpe_ranks]))
  .update(codingSources.map((source) => readFileSync(source, "utf8")).join("\n"))
  .update(readFileSync(fileURLToPath(import.meta.url)))
  .digest("hex")
  .slice(0, 16);

/** Tokens by rank from js-tiktoken's text form: lines of `<name> <first rank> <base64 token>...`. */
function tokensOf(data: TiktokenRanks): Uint8Array[] {
  const tokens: Uint8Array[] = [];
  for (const line of data.bpe_ranks.split("\n")) {
    if (line.length === 0) continue;
    const fields = line.split(" ");
    const first = Number.parseInt(fields[1] ?? "", 10);
    for (let i = 2; i < fields.length; i++) {
      const token = fields[i];
      if (!token) continue;
      const rank = first + i - 2;
      if (tokens[rank] !== undefined) throw new Error(`rank ${rank} appears twice`);
      tokens[rank] = Uint8Array.from(atob(token), (c) => c.charCodeAt(0));
    }
  }
  for (let rank = 0; rank < tokens.length; rank++) {
    // The compact form numbers tokens 0..count-1; js-tiktoken's current tables have no gaps.
    if (tokens[rank] === undefined) throw new Error(`rank ${rank} is missing`);
  }
  return tokens;
}

function sameTokens(a: readonly Uint8Array[], decoded: ReturnType<typeof decodeRanks>): boolean {
  if (decoded.count !== a.length) return false;
  return a.every((token, rank) => {
    const bytes = decoded.tokenBytes(rank);
    return bytes.length === token.length && token.every((byte, i) => bytes[i] === byte);
  });
}

/**
 * How a table's strings are compiled. `lazy`: inside a function V8 only scans until it first runs,
 * so a process that never counts with this encoding never builds them (cl100k_base's 381k
 * characters, in every process that imports the engine), and one that does builds them on first
 * use. `eager`: for the table every count decodes (o200k_base, also cl100k_base's reference), the
 * function is wrapped in parentheses, which V8 takes as a sign that it runs soon and compiles it
 * with the module: its 922k characters are scanned once instead of twice (at import, and again
 * when it first runs), ~1.3 ms off import + first count (measured).
 */
type Compile = "lazy" | "eager";

function moduleSource(
  name: string,
  pattern: string,
  encoded: EncodedRanks,
  compile: Compile,
): string {
  const streams = ["kinds", "parts", "left", "right", "references", "literals"] as const;
  const literal = (value: string) => JSON.stringify(value);
  const body = `{
  // Symbol streams first, bit streams after: gzip compresses each kind better when they do not alternate.
${streams.map((stream) => `  const ${stream}Symbols = ${literal(encoded[stream].symbols)};`).join("\n")}
${streams.map((stream) => `  const ${stream}Bits = ${literal(encoded[stream].bits)};`).join("\n")}
  return {
    count: ${encoded.count},
    byteLength: ${encoded.byteLength},
    maxTokenLength: ${encoded.maxTokenLength},
${streams.map((stream) => `    ${stream}: { symbols: ${stream}Symbols, bits: ${stream}Bits },`).join("\n")}
  };
}`;
  const declaration =
    compile === "eager"
      ? `/**
 * The table in compact form. Every count decodes this table, so its function is compiled with the
 * module (the parentheses tell V8 so): its strings are scanned once, not again on first use.
 */
export const ranks = (function ranks(): EncodedRanks ${body});`
      : `/**
 * The table in compact form. Its strings are written inside this function, not at the top of the
 * module: V8 only scans a function it has not run yet, so a process that never counts with this
 * encoding never builds them, and one that does builds them once, on first use (see \`tokens/encoder\`).
 */
export function ranks(): EncodedRanks ${body}`;
  return `/**
 * @module tokens/rank-data/${name}
 * ${name} in compact form. Generated by scripts/build-rank-data.ts from js-tiktoken ${tiktokenVersion}; do not edit.
 * stamp: ${stamp}
 */

import type { EncodedRanks } from "../rank-coding.js";

/** The pre-tokenizer pattern (flags \`gu\`). */
export const pattern = ${literal(pattern)};

${declaration}
`;
}

function isCurrent(file: string): boolean {
  try {
    return readFileSync(file, "utf8").includes(`stamp: ${stamp}\n`);
  } catch {
    return false;
  }
}

function write(file: string, source: string): void {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, source);
  renameSync(temporary, file);
}

const force = process.argv.includes("--force");
const o200kFile = join(outputDir, "o200k-base.ts");
const cl100kFile = join(outputDir, "cl100k-base.ts");
if (!force && isCurrent(o200kFile) && isCurrent(cl100kFile)) process.exit(0);

const started = performance.now();
mkdirSync(outputDir, { recursive: true });
const o200kTokens = tokensOf(o200kBase);
const cl100kTokens = tokensOf(cl100kBase);
const o200k = encodeRanks(o200kTokens);
const o200kDecoded = decodeRanks(o200k);
const cl100k = encodeRanks(cl100kTokens, o200kTokens);
if (!sameTokens(o200kTokens, o200kDecoded)) throw new Error("o200k_base does not decode back");
if (!sameTokens(cl100kTokens, decodeRanks(cl100k, o200kDecoded))) {
  throw new Error("cl100k_base does not decode back");
}
write(o200kFile, moduleSource("o200k-base", o200kBase.pat_str, o200k, "eager"));
write(cl100kFile, moduleSource("cl100k-base", cl100kBase.pat_str, cl100k, "lazy"));
console.log(
  `rank data from js-tiktoken ${tiktokenVersion} written to src/tokens/rank-data in ${Math.round(performance.now() - started)} ms`,
);
