/**
 * @module user/user-stub
 * The address of a user's Durable Object: `idFromName` of the authenticated
 * user's id alone, so only that user's requests (and their sessions' objects)
 * ever reach it.
 */

import type { MemorySink } from "../session/compaction/memory-flush";

export function userStub(env: Env, userId: string) {
  return env.USERS.get(env.USERS.idFromName(userId));
}

/**
 * Where a compaction's memory flush writes: the user's object, by RPC. The session object reaches
 * it with the user id stored in its own row, never with one a request names.
 */
export function userMemorySink(env: Env, userId: string): MemorySink {
  const stub = userStub(env, userId);
  return {
    memories: async () => stub.memories(),
    apply: async (ops, source) => stub.applyMemoryOperations(ops, source),
  };
}
