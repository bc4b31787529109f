/**
 * The Worker bundle's budget, which the Worker's `build` checks (scripts/bundle-budget.ts).
 */

import { describe, expect, it } from "vitest";
import { BUNDLE_BUDGET_KIB, budgetVerdict } from "../../scripts/bundle-budget";

describe("budgetVerdict", () => {
  it("is 1.2 MiB, issue 29's goal", () => {
    expect(BUNDLE_BUDGET_KIB).toBe(1228.8);
  });

  it("passes a bundle at or under the budget and prints its size", () => {
    expect(budgetVerdict(1228.8)).toEqual({
      ok: true,
      message: "Worker bundle: 1228.8 KiB gzipped, budget 1228.8 KiB",
    });
    expect(budgetVerdict(900, 1000).ok).toBe(true);
  });

  it("fails a bundle over the budget, saying by how much and how to find what grew", () => {
    const verdict = budgetVerdict(1230.84);
    expect(verdict.ok).toBe(false);
    expect(verdict.message).toContain("1230.8 KiB gzipped, budget 1228.8 KiB (2.0 KiB over)");
    expect(verdict.message).toContain("pnpm bench compare --figures bundle");
  });
});
