/**
 * @module summary/ledger-types
 * What code (not a model) remembers across compactions.
 */

/** An error a failed call's output named, carried by code across compactions. */
export interface LedgerError {
  /**
   * The line of the output that says what broke (`summary/error-signatures`): tool output, so
   * quoted as data wherever it is written, never followed.
   */
  signature: string;
  /** The step that met it, as a later success must repeat it: `$ mix test`, `Edit lib/x.ex`. */
  step: string;
  /** `fixed` once a later run of the same step succeeded; `failing` until then. */
  state: "failing" | "fixed";
}

/** A test or build step the agent ran, with the outcome of its latest run. */
export interface LedgerCommand {
  /** The step that runs the tests or the build: `python -m pytest tests/test_a.py -q`. */
  step: string;
  kind: "test" | "build";
  /** How its latest run ended: `ok`, `exit 1`, with the counts it printed (`exit 1 (1 failed, 9 passed)`). */
  outcome: string;
  failed: boolean;
}

export interface Ledger {
  /** Exact identifiers (UUIDs, hashes, URLs, paths, hosts, ids) seen in the compacted range. */
  identifiers: string[];
  files: { read: string[]; modified: string[] };
  /** The user's requests, verbatim (trimmed to a budget), secrets withheld. */
  userRequests: string[];
  /**
   * Every distinct error signature met, least recently seen first, with its state; trimmed
   * oldest fixed first past a cap. Absent in ledgers of earlier versions.
   */
  errors?: LedgerError[];
  /** Every test or build step run, least recently run first, with its latest outcome. */
  commands?: LedgerCommand[];
  /**
   * Hex SHA-256 of the summary the returning compaction left in the context
   * (`result.summary`): the next compaction recognises as the previous summary
   * only the message carrying exactly that text. Absent when there is none.
   */
  summarySha256?: string;
}
