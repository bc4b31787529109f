/**
 * @module test/api-types-core
 * Fails `tsc` when the memory types generated from the Worker's schemas drift
 * from `@condense/core`'s vocabulary (the client does not depend on core).
 */

import type * as Core from "@condense/core";
import type { MemoryEntry, MemoryKind } from "../src/api-types.js";

/** True only when A and B are the same type. */
type Same<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

export type InSync = [Same<MemoryEntry, Core.MemoryEntry>, Same<MemoryKind, Core.MemoryKind>];

export const inSync: InSync = [true, true];
