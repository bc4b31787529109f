/**
 * @module upstream/wire
 * A protocol as the scripted upstream serves it: `@condense/test-servers`'
 * protocol module (the answer in its wire format, its errors, rules, prompt
 * and items), and what the scripted model sees of a request in it.
 */

import type { JsonObject, ProtocolName, WireProtocol } from "@condense/test-servers";
import type { ModelRequest } from "../model/model-turn.ts";

export type { ProtocolName };

export interface AgentProtocol extends WireProtocol {
  read(body: JsonObject): ModelRequest;
}
