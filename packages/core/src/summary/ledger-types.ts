/**
 * @module summary/ledger-types
 * What code (not a model) remembers across compactions.
 */

export interface Ledger {
  /** Exact identifiers (UUIDs, hashes, URLs, paths, hosts, ids) seen in the compacted range. */
  identifiers: string[];
  files: { read: string[]; modified: string[] };
  /** The user's requests, verbatim (trimmed to a budget). */
  userRequests: string[];
}
