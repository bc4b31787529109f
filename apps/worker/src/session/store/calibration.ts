/**
 * @module session/store/calibration
 * Token-estimate calibration for models whose tokenizer the engine only
 * estimates. The provider's reported `usage.inputTokens` for a prompt, divided
 * by our estimate of that prompt, is folded into a per-session ratio (an
 * exponential moving average, clamped to 0.5–2.0); estimates are multiplied by
 * it. OpenAI models are counted exactly and are never calibrated.
 */

export interface Calibration {
  ratio: number;
  samples: number;
}

export const MIN_RATIO = 0.5;
export const MAX_RATIO = 2.0;
/** Weight of a new sample once a few have been seen. */
const ALPHA = 0.3;
/** Prompts smaller than this say little about the ratio (fixed overheads dominate). */
const MIN_ESTIMATE = 200;

/** Whether the engine counts this model's tokens exactly (OpenAI tokenizers). */
export function isExactlyCounted(model: string): boolean {
  const name = model.toLowerCase().replace(/^openai\//, "");
  return /^(gpt-|o\d|chatgpt-|ft:gpt-|text-embedding-)/.test(name);
}

/** The calibration after a prompt estimated at `estimated` tokens was reported as `reported`. */
export function calibrate(current: Calibration, estimated: number, reported: number): Calibration {
  if (!(estimated >= MIN_ESTIMATE) || !(reported > 0)) return current;
  const sample = Math.min(MAX_RATIO, Math.max(MIN_RATIO, reported / estimated));
  // The first samples get more weight so a fresh session converges quickly.
  const alpha = Math.max(ALPHA, 1 / (current.samples + 1));
  const ratio = current.ratio + alpha * (sample - current.ratio);
  return { ratio: Math.min(MAX_RATIO, Math.max(MIN_RATIO, ratio)), samples: current.samples + 1 };
}
