/**
 * @module views/cost-panel
 * The session's bill beside its context (issue 19): the cost chart
 * (`charts/cost-chart`) from `GET /compactions`, which carries the bill and
 * its running totals per served turn. Loads on its own, so the overview's
 * other reads do not wait for it.
 */

import type { SessionStatus } from "../api/types.ts";
import { CostChart } from "../charts/cost-chart.tsx";
import { useApi } from "../components/api-context.ts";
import { ErrorNote } from "../components/error-note.tsx";
import { useLoad } from "../components/use-load.ts";

export function CostPanel({ sessionId, status }: { sessionId: string; status: SessionStatus }) {
  const api = useApi();
  const [data] = useLoad(() => api.session(sessionId).compactionReport(), [api, sessionId, status]);
  return (
    <section aria-labelledby="cost-title" class="panel">
      <h2 id="cost-title">Input bill under prompt caching</h2>
      {data.state === "loading" ? (
        <p aria-busy="true">Loading the bill…</p>
      ) : data.state === "error" ? (
        <ErrorNote error={data.error} what="Loading the session's bill" />
      ) : (
        <CostChart series={data.value.costSeries} bill={data.value.bill} lastSeq={status.lastSeq} />
      )}
    </section>
  );
}
