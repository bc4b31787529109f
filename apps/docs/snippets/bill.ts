import type { SessionHandle } from "@condense/client";

declare const session: SessionHandle;

// #region snippet
const { bill } = await session.status();
console.log(
  `$${bill.dollars?.toFixed(2)} vs $${bill.wholeHistoryDollars?.toFixed(2)} for the whole history`,
  `(${bill.ratio?.toFixed(2)}×, ${bill.cacheBusts} cache busts, ${bill.turns} turns of ${bill.model})`,
);
// #endregion
