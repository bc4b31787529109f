/**
 * @module user/user-stub
 * The address of a user's Durable Object: `idFromName` of the authenticated
 * user's id alone, so only that user's requests (and their sessions' objects)
 * ever reach it.
 */

export function userStub(env: Env, userId: string) {
  return env.USERS.get(env.USERS.idFromName(userId));
}
