/**
 * @module gateway/recall/recall-source
 * Where the gateway's recall rounds get their answers: an interface, so the
 * rounds are tested with a fake, and its implementation over a session's
 * Durable Object (its `search` RPC, which `/search` serves, and a tool
 * call's exact output through the `toolOutput` RPC that `/tool-outputs` serves).
 */

import type { RecallSearchHit, RecallToolOutput } from "@condense/core";
import { unwrap } from "../../api/rpc-result";
import type { SearchResponseBody, ToolOutputResponseBody } from "../../api/schemas";
import type { SessionStub } from "../../session/session-stub";
import type { SessionKey } from "../../session/store/session-record";

/** What a recall call is answered from; a failure is thrown (an `ApiError`'s message reaches the model). */
export interface RecallSource {
  search(query: { q: string; limit: number }): Promise<RecallSearchHit[]>;
  toolOutput(toolCallId: string): Promise<RecallToolOutput>;
}

/** The recall source of the session of `key`. */
export function sessionRecallSource(stub: SessionStub, key: SessionKey): RecallSource {
  return {
    async search(query) {
      const found = unwrap<SearchResponseBody>(await stub.search(key, query));
      return found.results;
    },
    async toolOutput(toolCallId) {
      const output = unwrap<ToolOutputResponseBody>(await stub.toolOutput(key, toolCallId));
      return {
        toolCallId: output.toolCallId,
        toolName: output.toolName,
        content: output.content,
        seq: output.seq,
        pruned: output.pruned,
      };
    },
  };
}
