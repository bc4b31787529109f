/**
 * @module gateway/session-search
 * The one seam between the gateway's recall and the session's full-text
 * search (the session object's `search` RPC of issue 11, built on another
 * branch). Until that RPC is merged, a search is not available: the adapter
 * throws `SearchUnavailableError`, which the recall rounds answer to the
 * model as a recall error (a call by tool-call id still works). After the
 * merge, `searchSession` becomes one call of `stub.search(key, query)`.
 */

import type { RecallSearchHit } from "@condense/core";
import type { SessionObject } from "../session/session-object";
import type { SessionKey } from "../session/session-record";

/** A session's Durable Object, as the Worker calls it. */
export type SessionStub = DurableObjectStub<SessionObject>;

/** A search the session cannot run (yet): its message is for the model. */
export class SearchUnavailableError extends Error {
  constructor() {
    super(
      'search is not available on this service yet; call recall with {"toolCallId": "<the id of an earlier tool call>"} instead',
    );
    this.name = "SearchUnavailableError";
  }
}

/** The session's search results for `query`. REPLACE after merging the search branch. */
export async function searchSession(
  _stub: SessionStub,
  _key: SessionKey,
  _query: { q: string; limit: number },
): Promise<RecallSearchHit[]> {
  throw new SearchUnavailableError();
}
