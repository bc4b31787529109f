/**
 * @module index
 * The Worker's entry point: the Hono app as the default export and the
 * Durable Object classes the runtime instantiates (one per session, one per user).
 */

import { createApp } from "./app";

export { SessionObject } from "./session/session-object";
export { UserObject } from "./user/user-object";

export default createApp();
