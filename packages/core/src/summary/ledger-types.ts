/**
 * @module summary/ledger-types
 * What code (not a model) remembers across compactions.
 */

export interface Ledger {
  /** Exact identifiers (UUIDs, hashes, URLs, paths, hosts, ids) seen in the compacted range. */
  identifiers: string[];
  files: { read: string[]; modified: string[] };
  /** The user's requests, verbatim (trimmed to a budget), secrets withheld. */
  userRequests: string[];
  /**
   * Hex SHA-256 of the summary the returning compaction left in the context
   * (`result.summary`): the next compaction recognises as the previous summary
   * only the message carrying exactly that text. Absent when there is none.
   */
  summarySha256?: string;
}
