/**
 * @module session/context/context-measure
 * How the context stands against its limits: its measure (`ContextMeasure`)
 * translates between the engine's token estimate and the calibrated figures
 * the API reports, and says whether a compaction is due.
 */

import {
  type ChatMessage,
  cachedSummaryCostTokens,
  contextWindowFor,
  messageTokens,
  modelPricing,
  resolveOptions,
  shouldCompact,
  type WarningLevel,
} from "@condense/core";
import { cacheStateOf } from "../store/cache-state";
import { isExactlyCounted } from "../store/calibration";
import { lastReadAt } from "../store/cold-cache";
import { learnedWindowOf, type SessionRow, transcriptTotals } from "../store/session-record";
import type { SessionScope } from "../store/session-scope";
import { modelFor, type SessionSettings } from "../store/settings";
import { readViewState, type ViewState } from "../store/view-state";

/**
 * A context measured against the session's window: the model and pinned messages it is counted for,
 * the window and trigger in the engine's units, and the figures the API reports, calibrated.
 */
export interface ContextMeasure {
  model: string;
  /** The session's calibration ratio, or 1 for a model the engine counts exactly. */
  calibrationRatio: number;
  pinned: ChatMessage[];
  pinnedTokens: number;
  /** The latest gateway request's fixed overhead (its tool definitions), in engine tokens. */
  overheadTokens: number;
  /**
   * With an overhead: the target a compaction would aim at without it, in engine units
   * (`compaction/exhaustion` tells by it whether the overhead is why a compaction fell short of its
   * own), and the growth a compaction that did waits for: a quarter of the window without it.
   */
  overhead?: { targetWithout: number; regrowthTokens: number };
  /**
   * The window handed to the engine, in its own (uncalibrated) units, less the pinned messages, the
   * memory block's budget and the request's fixed overhead.
   */
  engineWindow: number;
  /** The context's size in engine units, pinned messages excluded. */
  engineTokens: number;
  /** Engine-unit context size above which a compaction triggers: min(budget, threshold × window). */
  engineTrigger: number;
  /** Engine-unit size a compaction aims at (under the trigger, so the next turns do not trigger it). */
  engineTarget: number;
  /** Engine-unit size the context may hold and keep the reserve free: what a served context fits. */
  engineBudget: number;
  /**
   * The request's fixed overhead (its tool definitions) takes the whole window by itself: no
   * message fits beside it, whatever is compacted or cut.
   */
  overheadFillsWindow: boolean;
  /** Whether the context is over the trigger (the engine's `shouldCompact`). */
  compactionDue: boolean;
  /** When the provider's cache was last read, as the decision took it (`cold-cache`). */
  cacheLastReadAt?: number;
  /** Reported figures, in calibrated tokens. */
  tokens: number;
  /** The configured (or the model's) window, or the one a provider stated if that is smaller. */
  contextWindow: number;
  triggerTokens: number;
  budget: number;
  warningLevel: WarningLevel;
}

/**
 * Context tokens and messages without loading any: the view's totals plus the transcript after it
 * (`view`: its state, when the caller read it already).
 */
export function contextSize(
  scope: SessionScope,
  view: ViewState | undefined = readViewState(scope.sql),
): { tokens: number; count: number } {
  const { sql, store } = scope;
  const after = store.tokensAfter(view?.coveredSeq ?? 0, transcriptTotals(sql));
  return {
    tokens: (view?.tokens ?? 0) + after.tokens,
    count: (view === undefined ? 0 : store.viewCount()) + after.count,
  };
}

/**
 * When the provider's cache was last read (`cold-cache`), and the session's time to judge it by:
 * past the cache's lifetime the cost policy compacts.
 */
export interface CacheClock {
  lastReadAt: number | undefined;
  now: number;
}

/** The session's {@link CacheClock}. */
export function cacheClock(scope: SessionScope): CacheClock {
  return { lastReadAt: lastReadAt(scope.sql), now: scope.now() };
}

/** The committed context measured from its stored counts, without loading any message. */
export function measureCommitted(
  scope: SessionScope,
  session: SessionRow,
  settings: SessionSettings,
): ContextMeasure {
  const { defaultModel } = scope;
  return measureContext(
    session,
    settings,
    contextSize(scope).tokens,
    defaultModel,
    cacheClock(scope),
  );
}

export function messagesTokens(messages: readonly ChatMessage[], model: string): number {
  return messages.reduce((sum, message) => sum + messageTokens(message, model), 0);
}

/**
 * About what core's summary instruction through the cache takes (`cachedPromptInstruction`: the
 * template and its rules, ~850 tokens, and a ledger): the part of the summary request no cache holds.
 */
const CACHED_SUMMARY_INSTRUCTION_TOKENS = 1_200;

/** A context estimated at `estimate` engine tokens (pinned messages excluded), measured against the session's window. */
export function measureContext(
  session: SessionRow,
  settings: SessionSettings,
  estimate: number,
  defaultModel: string | undefined,
  cache?: CacheClock,
): ContextMeasure {
  const cacheLastReadAt = cache?.lastReadAt;
  const model = modelFor(settings, session.lastModel, defaultModel);
  const ratio = isExactlyCounted(model) ? 1 : session.calibrationRatio;
  const pinned = settings.pinned;
  const pinnedTokens = messagesTokens(pinned, model);
  // With `memory` on, the memory block's budget is kept free in the window, as pinned messages are:
  // the block joins the context when it is served, after any compaction the trigger ran. A caller
  // that has the block already (in `pinned`) passes `memory: false`, so it is not counted twice.
  const memoryReserve = settings.memory ? settings.memoryTokens : 0;
  // What a gateway request sends beside its messages and the provider counts with them (its tool
  // definitions) takes its room in the window too, on every request.
  const overheadTokens = session.overheadTokens;
  // A window a provider stated in an overflow error for this model wins when it is the smaller one.
  const configured = settings.contextWindow ?? contextWindowFor(model);
  const contextWindow = Math.min(configured, learnedWindowOf(session, model) ?? configured);
  // The engine counts in its own units: a calibrated window is the real one divided by the ratio,
  // and the pinned messages and the overhead take their share before the engine sees it.
  const room = Math.floor(contextWindow / ratio) - pinnedTokens - Math.ceil(memoryReserve / ratio);
  const engineWindow = Math.max(1, room - overheadTokens);
  const options = (window: number) => ({
    contextWindow: window,
    ...(settings.threshold !== null ? { threshold: settings.threshold } : {}),
    ...(settings.reserveTokens !== null ? { reserveTokens: settings.reserveTokens } : {}),
    ...(settings.policy !== null ? { policy: settings.policy } : {}),
    ...(settings.floor !== null ? { floor: settings.floor } : {}),
  });
  // The cost policy decides with what the session carried since its last compaction (`cache-state`).
  const cacheState = cacheStateOf(session);
  // Summaries through the cache: the prompt read from the cache, the instruction and the summary
  // in full (`compact/summarizer-cost`). The deployment's summarizer is not priced here (its cost
  // stays out of the decision, as before).
  const summarizerCostTokens = settings.cachedSummaries
    ? cachedSummaryCostTokens(
        {
          promptTokens: estimate + pinnedTokens + overheadTokens,
          instructionTokens: CACHED_SUMMARY_INSTRUCTION_TOKENS,
          outputTokens: resolveOptions(model, options(engineWindow)).summaryMinTokens,
        },
        modelPricing(model),
      )
    : 0;
  const decision = shouldCompact(
    { model, tokens: estimate },
    {
      ...options(engineWindow),
      ...(summarizerCostTokens > 0 ? { summarizerCostTokens } : {}),
      ...(cacheState !== undefined ? { cacheState } : {}),
      ...(cacheLastReadAt !== undefined ? { cacheLastReadAt, now: cache?.now } : {}),
    },
  );
  const withoutOverhead = Math.max(1, room);
  const real = (engineTokens: number) => Math.round((engineTokens + pinnedTokens) * ratio);
  return {
    model,
    calibrationRatio: ratio,
    pinned,
    pinnedTokens,
    overheadTokens,
    ...(overheadTokens > 0
      ? {
          overhead: {
            targetWithout: resolveOptions(model, options(withoutOverhead)).target,
            regrowthTokens: Math.floor(withoutOverhead / 4),
          },
        }
      : {}),
    engineWindow,
    engineTokens: estimate,
    engineTrigger: Math.min(decision.budget, decision.triggerTokens),
    engineTarget: resolveOptions(model, options(engineWindow)).target,
    engineBudget: decision.budget,
    overheadFillsWindow: overheadTokens > 0 && room - overheadTokens <= 0,
    compactionDue: decision.compact,
    ...(cacheLastReadAt !== undefined ? { cacheLastReadAt } : {}),
    tokens: real(estimate),
    contextWindow,
    triggerTokens: real(decision.triggerTokens),
    budget: real(decision.budget),
    warningLevel: decision.warningLevel,
  };
}
