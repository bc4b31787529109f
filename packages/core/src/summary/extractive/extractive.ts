/**
 * @module summary/extractive/extractive
 * The extractive summarizer (tier 4): a structured summary written by code,
 * without a model. Deterministic (same request, same summary), never throws,
 * and always carries every ledger identifier and file verbatim. It says what
 * happened (what changed in each file, which commands ran and how they ended),
 * not only which identifiers were seen.
 *
 * What goes where:
 * - Goal: the first user request verbatim (as kept by the ledger), plus the
 *   latest request when it differs and is not already a pending ask.
 * - Constraints & preferences: user sentences with must/never/don't/always/
 *   prefer/should/avoid/make sure/ensure/required.
 * - Progress: `### Done` (tool-call counts per tool, assistant sentences that
 *   report completed work, the final reply when the range ends a turn),
 *   `### In progress` (the last assistant message when the turn is still
 *   open, calls still waiting for a result), `### Blocked` (failures among the
 *   last 20 calls that no later call succeeded at: the same last step of a
 *   command without its `cd dir &&`, or the same tool on the same file).
 * - Key decisions: assistant sentences with decided/instead/because/will use/
 *   chose/rather than/switch to/root cause.
 * - Pending user asks: user requests after the assistant's last final reply.
 * - Files (`summary/extractive/file-lines`): `### Modified`, one line per file saying
 *   what was done to it: the edits, writes or commands, failed ones counted,
 *   the definitions touched, lines added and removed, the last change as
 *   before → after, and the last test run after it with its outcome (or that
 *   none ran); `### Read`, the files only read.
 * - Commands & errors: shell commands other than read-only ones (`ls`, `cat`,
 *   `grep`: counted, not listed) and failed calls, with their outcome (see
 *   `summary/ledger/call-outcome`), the counts a test run printed (`9 passed, 1
 *   failed`), the first useful error line, and which failures a later run of
 *   the same step resolved. The last 25 and the last 15 failures are listed
 *   (repeats collapsed as `(×n)`); the rest are counted. An error line is tool
 *   output, so it is quoted as data: `output:` and a code span, never as a
 *   statement or a heading of the summary.
 * - Exact identifiers (`summary/extractive/identifier-lines`): the ledger's identifiers
 *   that no other line shows, each beside where it was named (the call, or the
 *   sentence of the user or the assistant), then `### Tool outputs worth
 *   fetching back`: up to 8 recent large outputs that are still current, each
 *   with its tool, target, size and tool-call id, and how many more outputs
 *   there are, retrievable by id without being listed.
 * - Next steps: open todo items of the latest `TodoWrite`/`update_plan` call,
 *   else the intent sentences (next/let me/I'll/need to) of the last assistant
 *   message, else a pointer to the pending request.
 * - Critical context: the working directory (most frequent `cd` target) and
 *   the branch created with `git checkout -b`/`git switch -c`.
 *
 * A `<compacted-context>` block quoted inside a message (a tool output, a
 * fetched page, a message copying a summary) is not the engine's summary:
 * it is left out before anything is read, and the message around it is read
 * as usual.
 *
 * With a previous summary: its Goal, Constraints, Key decisions, Resolved
 * questions, Critical context and Exact identifiers lines are kept (new items
 * appended, duplicates dropped; its list of tool outputs has retired); its
 * Files lines are kept for files this range did not change; its Progress items
 * move into `### Done`, those that were in progress or blocked marked
 * `(earlier, was in progress)` / `(earlier, was blocked)`; its Commands lines
 * are kept before the new ones and its tool-call and command counts are added
 * to the new ones; its Pending user asks survive only while the new range has
 * no final assistant reply; its Next steps are used only when the new range
 * has no assistant text at all.
 *
 * Size: `maxTokens` is respected by trimming, lists of ids before narrative:
 * the tool outputs (then counted as more), the places identifiers were named
 * (the identifiers stay, as a plain list), older commands, Done items,
 * Critical context, Key decisions, Resolved questions, Constraints, then each
 * file's line shortened (to what was done, lines and the later test run) and
 * at last to its path, blocked items, Next steps, in-progress items, Pending
 * user asks, and finally the Goal's latest and first request (shortened
 * before dropped). Ledger identifiers and files are never dropped, so a ledger
 * larger than `maxTokens` yields a summary over it. Operator
 * `instructions`/`focus` steer LLM summarizers only.
 *
 * Where each part lives: `summary/extractive/extractive-plan` plans the sections (from
 * `summary/extractive/sentences`, `summary/extractive/progress-lines`, `summary/extractive/file-lines`,
 * `summary/extractive/command-lines` and `summary/extractive/identifier-lines`), and
 * `summary/extractive/extractive-budget` renders the plan and fits it to `maxTokens`.
 */

import { packIdentifiers } from "../ledger/ledger.js";
import type { SummarizeRequest, Summarizer } from "../summarizer.js";
import { NONE, quote } from "../summary-lines.js";
import { renderSections } from "../template.js";
import { fitToBudget } from "./extractive-budget.js";
import { plan } from "./extractive-plan.js";

/** No options yet; the parameter keeps the factory signature stable. */
export type ExtractiveSummarizerOptions = Record<string, never>;

/** The tier-4 summarizer: `{ kind: "extractive", name: "extractive" }`, no model calls. */
export function extractiveSummarizer(_options: ExtractiveSummarizerOptions = {}): Summarizer {
  return {
    name: "extractive",
    kind: "extractive",
    async summarize(request: SummarizeRequest) {
      return { summary: extractiveSummary(request), calls: 0, inputTokens: 0 };
    },
  };
}

/** The extractive summary text for `request` (what `summarize` returns). */
export function extractiveSummary(request: SummarizeRequest): string {
  try {
    return fitToBudget(plan(request), request);
  } catch {
    // A bug here must not cost the conversation its memory: fall back to the essentials.
    return minimalSummary(request);
  }
}

function minimalSummary(request: SummarizeRequest): string {
  const { ledger } = request;
  const first = ledger.userRequests[0];
  return renderSections({
    Goal: first === undefined ? NONE : quote(first),
    Progress: NONE,
    Files:
      [
        ledger.files.modified.length > 0
          ? `### Modified\n${ledger.files.modified.map((p) => `- ${p}`).join("\n")}`
          : "",
        ledger.files.read.length > 0
          ? `### Read\n${ledger.files.read.map((p) => `- ${p}`).join("\n")}`
          : "",
      ]
        .filter((block) => block !== "")
        .join("\n\n") || NONE,
    "Exact identifiers": ledger.identifiers.length > 0 ? packIdentifiers(ledger.identifiers) : NONE,
    "Next steps": NONE,
  });
}
