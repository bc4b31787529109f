/**
 * @module zod-locales
 * What the Worker's bundle has in place of zod's `locales` module (wrangler.jsonc's `alias` maps
 * zod's own `../locales/index.js` here): English alone, the language zod configures by default and
 * the one our error messages are written in. zod's 64 other locales are ~260 KiB of the bundle
 * (~70 KiB gzipped), kept only because `z.locales` is reachable from the `z` namespace that
 * @hono/zod-openapi re-exports; nothing here calls `z.config(z.locales.…)`. Only the Worker's
 * build is narrowed: the docs site (Astro re-exports zod's `locales`) and the tests keep zod whole.
 */

export { default as en } from "zod/v4/locales/en.js";
