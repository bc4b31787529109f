/**
 * @module session/session-stub
 * The address of a session's Durable Object: `idFromName` of the
 * authenticated user's id and the session id together, so one user can never
 * reach another's session (a foreign session simply does not exist), and the
 * stub's type, for the modules that call it.
 */

import type { SessionObject } from "./session-object";
import type { SessionKey } from "./store/session-record";

/** A session's Durable Object, as the Worker calls it. */
export type SessionStub = DurableObjectStub<SessionObject>;

/** The Durable Object of (user, session). JSON encoding keeps the pair unambiguous whatever the ids hold. */
export function sessionStub(env: Env, key: SessionKey): SessionStub {
  return env.SESSIONS.get(env.SESSIONS.idFromName(JSON.stringify([key.userId, key.sessionId])));
}
