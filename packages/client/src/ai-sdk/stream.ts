/**
 * @module ai-sdk/stream
 * Rebuilds a streamed answer's content from the AI SDK's stream parts, as
 * `streamText` does for its next step: text and reasoning deltas joined per
 * block id (provider metadata merged, so a signature sent on a late delta is
 * kept), tool calls, files and custom parts as they come, and the usage of the
 * `finish` part.
 */

import type {
  LanguageModelV4Content,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
  SharedV4ProviderMetadata,
} from "@ai-sdk/provider";
import type { UsageReport } from "../api-types.js";
import { aiSdkUsage } from "../usage/usage-report.js";

type Block = { block: "text" | "reasoning"; text: string; metadata?: SharedV4ProviderMetadata };

function merge(
  current: SharedV4ProviderMetadata | undefined,
  next: SharedV4ProviderMetadata | undefined,
): SharedV4ProviderMetadata | undefined {
  if (next === undefined) return current;
  if (current === undefined) return next;
  const merged: SharedV4ProviderMetadata = { ...current };
  for (const [provider, values] of Object.entries(next))
    merged[provider] = { ...current[provider], ...values };
  return merged;
}

export class StreamAnswerAssembler {
  /** Content in order of arrival; text and reasoning blocks are filled in as deltas come. */
  readonly #content: Array<LanguageModelV4Content | Block> = [];
  readonly #open = new Map<string, Block>();
  #usage: LanguageModelV4Usage | undefined;

  add(part: LanguageModelV4StreamPart): void {
    switch (part.type) {
      case "text-start":
      case "reasoning-start": {
        const block: Block = {
          block: part.type === "text-start" ? "text" : "reasoning",
          text: "",
          ...(part.providerMetadata !== undefined ? { metadata: part.providerMetadata } : {}),
        };
        this.#open.set(`${block.block}:${part.id}`, block);
        this.#content.push(block);
        return;
      }
      case "text-delta":
      case "reasoning-delta":
      case "text-end":
      case "reasoning-end": {
        const block = this.#open.get(
          `${part.type.startsWith("text") ? "text" : "reasoning"}:${part.id}`,
        );
        if (block === undefined) return;
        if ("delta" in part) block.text += part.delta;
        const metadata = merge(block.metadata, part.providerMetadata);
        if (metadata !== undefined) block.metadata = metadata;
        return;
      }
      case "tool-call":
      case "file":
      case "custom":
      case "reasoning-file":
      case "tool-result":
        this.#content.push(part);
        return;
      case "finish":
        this.#usage = part.usage;
        return;
      default:
        return;
    }
  }

  /** Whether the stream ended with a `finish` part. */
  get finished(): boolean {
    return this.#usage !== undefined;
  }

  /** The prompt's usage the `finish` part reported (the total, the cache's reads and writes). */
  get usage(): UsageReport | undefined {
    return aiSdkUsage(this.#usage);
  }

  content(): LanguageModelV4Content[] {
    return this.#content.map((item): LanguageModelV4Content => {
      if (!("block" in item)) return item;
      const providerMetadata =
        item.metadata === undefined ? {} : { providerMetadata: item.metadata };
      return { type: item.block, text: item.text, ...providerMetadata };
    });
  }
}
