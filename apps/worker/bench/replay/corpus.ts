/**
 * @module bench/replay/corpus
 * The transcripts the replay benches (`bench/cost`, `bench/probes`) run on: `--corpus DIR`, else
 * the shared corpus beside the repository (`../shared/corpus/normalized`, then
 * `../../shared/corpus/normalized`, for a checkout in a worktree folder) when present, else the
 * engine's fixtures; `--only SUBSTRING` keeps the files whose name holds it.
 */

import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type ChatMessage, parseMessages } from "@condense/core";
import { TRANSCRIPTS_DIR } from "@condense/test-fixtures/transcripts";

/** The Worker's folder (apps/worker). */
export const workerRoot = join(dirname(fileURLToPath(import.meta.url)), "../..");
/** The repository's root. */
export const repository = join(workerRoot, "../..");

/** The value after `name` on the command line, if any. */
export function argument(name: string): string | undefined {
  const index = process.argv.indexOf(name);
  return index >= 0 ? process.argv[index + 1] : undefined;
}

export interface CorpusTranscript {
  /** The file name without `.json`. */
  name: string;
  messages: ChatMessage[];
}

function hasFiles(folder: string): boolean {
  try {
    return readdirSync(folder).some((file) => file.endsWith(".json"));
  } catch {
    return false;
  }
}

/** The folder the corpus is read from (see the module). */
export function corpusFolder(given = argument("--corpus")): string {
  if (given !== undefined) return given;
  const shared = ["../shared", "../../shared"]
    .map((relative) => join(repository, relative, "corpus/normalized"))
    .find(hasFiles);
  return shared ?? TRANSCRIPTS_DIR;
}

/** The corpus's transcripts, by file name, parsed as the engine parses messages. */
export function loadCorpus(options: { folder?: string; only?: string } = {}): {
  source: string;
  transcripts: CorpusTranscript[];
} {
  const folder = options.folder ?? corpusFolder();
  const only = options.only ?? argument("--only");
  const transcripts = readdirSync(folder)
    .filter((file) => file.endsWith(".json") && (only === undefined || file.includes(only)))
    .sort()
    .map((file) => ({
      name: file.replace(/\.json$/, ""),
      messages: parseMessages(
        (JSON.parse(readFileSync(join(folder, file), "utf8")) as { messages: unknown[] }).messages,
      ),
    }));
  return { source: folder, transcripts };
}

/** The session name of a transcript's replay at a window. */
export function replaySession(window: number, transcript: string): string {
  return `${window}-${transcript}`.replace(/[^A-Za-z0-9_-]/g, "-").slice(0, 100);
}
