/**
 * @module session/compaction/local
 * The local strategy: the engine's tiers (`compact()` of `@condense/core`)
 * make the new view, with the session's settings, its summarizer, cooldown
 * (or open breaker, `compaction/summarizer-breaker`), carried ledger, and
 * while it thrashes its largest outputs moved to recall first
 * (`compaction/thrashing`); and their deterministic fallback, for when that throws:
 * the extractive summarizer with only the settings the engine accepts.
 */

import {
  type CachedPromptAnswer,
  type CachedPromptTurn,
  type ChatMessage,
  type CompactInput,
  type CompactOptions,
  type CompactResult,
  cachedPromptSummarizer,
  compact,
  extractiveSummarizer,
  type Ledger,
  messageTokens,
  resolveOptions,
  type Summarizer,
  summaryDigest,
} from "@condense/core";
import { workerConfig } from "../../config/worker-config";
import type { ContextMeasure } from "../context/context-measure";
import { cutOutputReference, type OutputSeqs, outputReference } from "../context/tool-outputs";
import { cacheStateOf } from "../store/cache-state";
import { ledgerOf, type SessionRow } from "../store/session-record";
import { type SessionSettings, settingsOptions } from "../store/settings";
import { summarizerFor } from "../store/summarizer-config";
import type { NewView } from "./commit";
import type { SummaryUsage } from "./history";
import type { CompactionSnapshot } from "./open-calls";
import { llmSkippedUntil, type SummarizerBreaker } from "./summarizer-breaker";
import type { Thrashing } from "./thrashing";

/** What the local strategy compacts, and with what. */
export interface LocalCompaction {
  env: Env;
  session: SessionRow;
  settings: SessionSettings;
  snapshot: CompactionSnapshot;
  measure: ContextMeasure;
  outputSeqs: OutputSeqs;
  /** Compact even below the trigger (manual and overflow compactions). */
  force: boolean;
  instructions?: string;
  focus?: string;
  /** Set while the session thrashes: its largest outputs go to recall first (`compaction/thrashing`). */
  thrashing?: Thrashing | undefined;
  /** The LLM summarizer's breaker (`compaction/summarizer-breaker`): open, the LLM is skipped. */
  breaker: SummarizerBreaker;
  /** The session's time (`SessionScope.now`): the engine's cooldown decisions are taken at it. */
  now: number;
  /** Summaries through the cache (`gateway/plans/cached-summary`): the channel to the turn's upstream. */
  cachedSummary?: CachedSummaryChannel | undefined;
}

/** Sends the live prompt extended by `turns` to the session's upstream; a Workers RPC stub here. */
export type CachedSummaryChannel = (turns: CachedPromptTurn[]) => Promise<CachedPromptAnswer>;

/** The summarizer through `channel`, and the usage its answers reported, summed as they come. */
function cachedSummarizer(
  channel: CachedSummaryChannel,
  model: string,
): { summarizer: Summarizer; usage: SummaryUsage } {
  const usage: SummaryUsage = {
    inputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    outputTokens: 0,
  };
  const send = async (turns: readonly CachedPromptTurn[]): Promise<CachedPromptAnswer> => {
    const answer = await channel([...turns]);
    const reported = answer.usage;
    if (reported !== undefined) {
      usage.inputTokens += reported.inputTokens;
      usage.cacheReadTokens += reported.cacheReadTokens ?? 0;
      usage.cacheWriteTokens += reported.cacheWriteTokens ?? 0;
      usage.outputTokens += reported.outputTokens ?? 0;
    }
    return answer;
  };
  return { summarizer: cachedPromptSummarizer({ model, send }), usage };
}

/** What the engine takes of a snapshot: canonical messages. */
type EngineInput = CompactInput & { format: "openai" };

/**
 * The engine's input: the snapshot's canonical messages (they keep their provider data, thinking
 * blocks and reasoning items, through the engine), their transcript seqs, which a summary that
 * withholds a secret points to, and their stored counts, so the engine tokenizes only what it writes.
 */
function engineInput(snapshot: CompactionSnapshot, model: string): EngineInput {
  return {
    model,
    format: "openai",
    messages: snapshot.messages,
    seqs: snapshot.seqs,
    tokenCounts: snapshot.tokenCounts,
  };
}

/** The window the engine compacts into: the open tool calls left after the folded range take their share. */
function engineWindow(compaction: LocalCompaction): number {
  return Math.max(1, compaction.measure.engineWindow - compaction.snapshot.openCallTokens);
}

/** The recall tool the summary names, with the session's `recall` setting on. */
function recallOption(settings: SessionSettings): Pick<CompactOptions, "recallTool"> {
  return settings.recall === true ? { recallTool: RECALL_TOOL } : {};
}

/** While the session thrashes, what refills it (its largest outputs) goes to recall first. */
function thrashOption(compaction: LocalCompaction): Pick<CompactOptions, "pruneLargestOutputs"> {
  return compaction.thrashing !== undefined ? { pruneLargestOutputs: true } : {};
}

/** The name of the tool the client and the gateway offer for recalling compacted history. */
const RECALL_TOOL = "recall";

/** The view the engine's tiers make of the snapshot, configured by the session. */
export async function localView(compaction: LocalCompaction): Promise<NewView> {
  const { env, settings, session } = compaction;
  const ledger = await carriedLedger(session, compaction.snapshot);
  // The cost policy's state, so the engine decides as the trigger did (`cache-state`).
  const cacheState = cacheStateOf(session);
  const llmSkipped = llmSkippedUntil(session.cooldownUntil, compaction.breaker);
  const model = compaction.measure.model;
  const cached =
    compaction.cachedSummary === undefined
      ? undefined
      : cachedSummarizer(compaction.cachedSummary, model);
  const options: CompactOptions = {
    contextWindow: engineWindow(compaction),
    ...settingsOptions(settings),
    // Placeholders name the seq `GET /tool-outputs/{id}?seq=` takes, as ids may be reused.
    toolOutputReference: outputReference(compaction.outputSeqs),
    cutOutputReference: cutOutputReference(compaction.outputSeqs, session.sessionId),
    summarizer: cached?.summarizer ?? summarizerFor(env, settings.summarizerModel),
    // The cooldown after a failure, or longer while the breaker is open.
    ...(llmSkipped !== undefined ? { cooldownUntil: llmSkipped } : {}),
    cooldownSeconds: workerConfig(env).cooldownSeconds,
    now: compaction.now,
    // Identifiers, files and requests of earlier compactions, carried by code rather than by the summary.
    ...(ledger !== undefined ? { ledger } : {}),
    ...(compaction.instructions !== undefined ? { instructions: compaction.instructions } : {}),
    ...(compaction.focus !== undefined ? { focus: compaction.focus } : {}),
    force: compaction.force,
    ...(cacheState !== undefined ? { cacheState } : {}),
    // The trigger's cold cache (`cold-cache`), so the engine decides as it did.
    ...(compaction.measure.cacheLastReadAt !== undefined
      ? { cacheLastReadAt: compaction.measure.cacheLastReadAt }
      : {}),
    ...recallOption(settings),
    ...thrashOption(compaction),
  };
  const view = viewOf(await compact(engineInput(compaction.snapshot, model), options), model);
  return cached !== undefined && cached.usage.inputTokens > 0
    ? { ...view, summaryUsage: cached.usage }
    : view;
}

/**
 * The deterministic fallback's view: the window, and the threshold, reserve and tail when the engine
 * accepts them (else its defaults); no LLM, no identifier policy, and of the stored ledger only the
 * anchor of the view's summary, so the summary is still recognised (identifiers of earlier compactions
 * are then read from it). Forced: the service already decided to compact.
 */
export async function fallbackView(compaction: LocalCompaction): Promise<NewView> {
  const { settings, measure } = compaction;
  const window = { contextWindow: engineWindow(compaction) };
  const sizes = {
    ...(settings.threshold !== null ? { threshold: settings.threshold } : {}),
    ...(settings.reserveTokens !== null ? { reserveTokens: settings.reserveTokens } : {}),
    ...(settings.tailTokens !== null ? { tailTokens: settings.tailTokens } : {}),
    ...(settings.policy !== null ? { policy: settings.policy } : {}),
    ...(settings.floor !== null ? { floor: settings.floor } : {}),
  };
  let accepted = true;
  try {
    resolveOptions(measure.model, { ...window, ...sizes });
  } catch {
    accepted = false;
  }
  const summary = compaction.snapshot.view?.summary ?? null;
  const anchor = summary === null ? undefined : await summaryDigest(summary);
  const options: CompactOptions = {
    ...window,
    ...(accepted ? sizes : {}),
    summarizer: extractiveSummarizer(),
    toolOutputReference: outputReference(compaction.outputSeqs),
    cutOutputReference: cutOutputReference(compaction.outputSeqs, compaction.session.sessionId),
    ...(anchor !== undefined
      ? {
          ledger: {
            identifiers: [],
            files: { read: [], modified: [] },
            userRequests: [],
            summarySha256: anchor,
          },
        }
      : {}),
    force: true,
    ...recallOption(settings),
    ...thrashOption(compaction),
  };
  return viewOf(
    await compact(engineInput(compaction.snapshot, measure.model), options),
    measure.model,
  );
}

/**
 * The summarizer that wrote the result's summary, by the tier whose pass wrote it (the engine's
 * `Summarizer.kind`): `llm` for tiers 2 and 3, `extractive` for tier 4, also when the LLM was
 * called and failed (`summarizerFailure` says why); null when no summarizer wrote one, as in a
 * tool strip, which keeps the summary an earlier compaction wrote. Calls made are no witness: a
 * failed LLM call counts too.
 */
function summarizerOf(result: CompactResult<ChatMessage>): "llm" | "extractive" | null {
  if (result.summary === null || result.tier < 2) return null;
  return result.tier === 4 ? "extractive" : "llm";
}

/** The engine's result as a view: its messages with their own counts, as stored and reported everywhere else. */
function viewOf(result: CompactResult<ChatMessage>, model: string): NewView {
  return {
    strategy: "local",
    tier: result.tier,
    // The engine's totals also count the tokens priming the reply, which no stored context includes.
    entries: result.messages.map((message) => ({ message, tokens: messageTokens(message, model) })),
    summary: result.summary,
    summarizer: summarizerOf(result),
    summarizerFailure: result.summarizerFailure ?? null,
    prunedOutputs: result.prunedToolOutputs,
    passes: result.passes,
    // Only a summarizing pass (tier 2 and up) returns a ledger, the carried one included; after a
    // prune-only compaction the stored one still holds.
    ...(result.tier >= 2 ? { ledger: result.ledger } : {}),
    ...(result.cooldownUntil !== undefined ? { cooldownUntil: result.cooldownUntil } : {}),
    ...(result.cacheState !== undefined ? { stableTokens: result.cacheState.stableTokens } : {}),
    ...(!result.compacted || result.finalTokens >= result.originalTokens
      ? { unchangedReason: result.reason ?? "compaction could not make the context smaller" }
      : {}),
  };
}

/**
 * The stored ledger, anchored to the summary the committed view holds: only the message carrying
 * exactly that summary (which this object stored, never a client) is recognised as the summary.
 * Taken from the view, not the stored digest, so a view of OpenAI items (no summary) anchors nothing
 * and a view committed before anchors existed still has its summary recognised.
 */
async function carriedLedger(
  session: SessionRow,
  snapshot: CompactionSnapshot,
): Promise<Ledger | undefined> {
  const stored = ledgerOf(session);
  const summary = snapshot.view?.summary ?? null;
  if (summary !== null) {
    const lists = stored ?? {
      identifiers: [],
      files: { read: [], modified: [] },
      userRequests: [],
    };
    return { ...lists, summarySha256: await summaryDigest(summary) };
  }
  if (stored === undefined) return undefined;
  const { summarySha256: _noSummaryInView, ...lists } = stored;
  return lists;
}
