/**
 * @module transcripts
 * Where the recorded agent transcripts are (`transcripts/`, provenance and
 * licences in its README), for the tests and benchmarks that read them all.
 * One file is imported by name instead:
 * `@condense/test-fixtures/transcripts/<name>.json`. Node only.
 */

import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** The folder of the transcripts. */
export const TRANSCRIPTS_DIR = fileURLToPath(new URL("../transcripts", import.meta.url).href);

/** The transcripts' file names (`<agent>__<task>.json`), in order. */
export function transcriptFiles(): string[] {
  return readdirSync(TRANSCRIPTS_DIR)
    .filter((name) => name.endsWith(".json"))
    .sort();
}
