/**
 * @module model/bill-words
 * The session's bill in words (issue 19, issue 32): what it cost against
 * the whole history, over how many turns, with how many cache busts and
 * cold-cache turns, and what the figure rests on: the provider's reported
 * usage (measured) or the cache model on the contexts served (estimated);
 * and the turns whose cache miss the provider explained.
 */

import type { CompactionList } from "../api/types.ts";

type Bill = CompactionList["bill"];

function money(value: number | null): string {
  return value === null ? "—" : `$${value.toFixed(value < 1 ? 4 : 2)}`;
}

/** Where the bill's figures come from (its `basis`), in words. */
function basisWords(bill: Bill): string {
  switch (bill.basis) {
    case "usage":
      return "measured from the provider's usage (the whole history's side estimated)";
    case "estimated":
      return "estimated from the contexts served (no usage reported)";
    case "mixed":
      return `${bill.measuredTurns} of ${bill.turns} turns measured from the provider's usage, ${bill.turns - bill.measuredTurns} estimated`;
  }
}

/** What the bill says, in words: the cost chart's label and its caption. */
export function describeBill(bill: Bill): string {
  if (bill.ratio === null) return "No model request served yet.";
  return `${money(bill.dollars)} of input (${bill.model}) against ${money(bill.wholeHistoryDollars)} for the whole history: ${bill.ratio.toFixed(2)}× over ${bill.turns} turns, ${bill.cacheBusts} cache busts, ${bill.coldTurns} on a cold cache; ${basisWords(bill)}`;
}

/** Each turn whose cache miss the provider explained (Anthropic's diagnostics), in words. */
export function describeCacheMisses(series: CompactionList["costSeries"]): string[] {
  return series.flatMap(({ lastSeq, cacheMiss }) =>
    cacheMiss === null
      ? []
      : [
          `turn after message ${lastSeq}: ${cacheMiss.reason}${
            cacheMiss.missedTokens === null
              ? ""
              : `, ${cacheMiss.missedTokens.toLocaleString("en-US")} tokens missed`
          }`,
        ],
  );
}
