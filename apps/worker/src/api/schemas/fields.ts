/**
 * @module api/schemas/fields
 * Fields that several bodies share, defined once: the compaction options that
 * `POST /v1/compact` takes and a session's settings store, a model's name, and
 * the limits a context is measured against. Not re-exported by `api/schemas`:
 * they are parts of bodies, not bodies.
 */

import { z } from "@hono/zod-openapi";
import { WarningLevel } from "./shared.js";

export const contextWindowValue = z
  .union([z.number().int().positive(), z.string().regex(/^\s*\d+(\.\d+)?\s*[kKmM]?\s*$/)])
  .openapi({ description: 'Tokens the model accepts: a number or a string such as "128k"' });

export const IdentifierPolicy = z.enum(["strict", "custom", "off"]);

/** A model as a request names it. */
export const ModelName = z.string().min(1).max(200);

/** The fraction of the usable window at which compaction triggers. */
export const ThresholdValue = z.number().gt(0).lte(1);

/**
 * When to compact: `cost` when it pays for the prompt cache it breaks (the default), `window` at
 * the threshold (docs/notes/cost-model.md).
 */
export const CompactionPolicy = z.enum(["cost", "window"]).openapi({
  description:
    "cost: compact past the floor when it pays for the prompt cache it breaks, deep (default); window: at the threshold",
});

/** Policy cost's floor: a fraction of the window. */
export const FloorValue = z.number().gte(0).lte(1);

/** Text for the summarizer: instructions, a focus, what to do with identifiers. */
export const SummarizerText = z.string().max(20_000);

/** The window, window − reserve and how far over them: the limits a context is measured against. */
export const contextLimits = {
  contextWindow: z.number().int(),
  budget: z.number().int(),
  warningLevel: WarningLevel,
};
