/**
 * The route-level property test: random sequences of valid and mutated calls
 * to a session and its user's memory (`test/api/route-fuzz`), each followed by the
 * four oracles: no 5xx, every error in its documented shape, the context valid
 * for its provider in every format, and a refused request changing nothing.
 * `pnpm test` runs a few sequences; `ROUTE_FUZZ_RUNS=200` runs more (and
 * `ROUTE_FUZZ_SEED` replays one that failed).
 */

import { env } from "cloudflare:test";
import fc from "fast-check";
import { afterAll, describe, it } from "vitest";
import { freshSession } from "../support/helpers";
import { freshUser } from "../support/user-helpers";
import { arbCommands, type FuzzReal, fuzzCounts, initialModel } from "./route-fuzz";

const runs = Number(env.ROUTE_FUZZ_RUNS) > 0 ? Number(env.ROUTE_FUZZ_RUNS) : 10;
const given = env.ROUTE_FUZZ_SEED === "" ? Number.NaN : Number(env.ROUTE_FUZZ_SEED);
// Always seeded, and the seed printed: a run can be replayed whatever it found.
const seed = Number.isInteger(given) ? given : Math.floor(Math.random() * 2 ** 31);

afterAll(() => {
  console.log(
    `route fuzz: seed ${seed}, ${runs} sequences, ${fuzzCounts.calls} calls (${fuzzCounts.refusals} refused 4xx), ${fuzzCounts.contextsChecked} contexts checked in 3 formats`,
  );
});

describe("every route, on random sequences of valid and mutated calls", () => {
  it(
    "never answers 5xx, documents every error, serves valid contexts and refuses without changing state",
    async () => {
      await fc.assert(
        fc.asyncProperty(arbCommands(12), async (commands) => {
          const real: FuzzReal = { sessionId: freshSession("fuzz"), as: await freshUser("fuzz") };
          await fc.asyncModelRun(() => ({ model: initialModel(), real }), commands);
        }),
        { numRuns: runs, seed },
      );
    },
    60_000 + runs * 1_500,
  );
});
