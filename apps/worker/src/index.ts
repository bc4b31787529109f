/**
 * @module index
 * The Worker's entry point: the Hono app as the default export and the
 * session Durable Object class the runtime instantiates.
 */

import { createApp } from "./app";

export { SessionObject } from "./session/session-object";

export default createApp();
