/**
 * @module formats/anthropic/unsupported-parts
 * The parts of canonical messages that Anthropic cannot hold: audio (Claude
 * takes none), and files other than PDF, text and JPEG/PNG/GIF/WebP images.
 */

import type { MessageProblem } from "../../errors/condense-error.js";
import { fileDataUrl } from "../../messages/data-url.js";
import type { ChatMessage } from "../../messages/types.js";
import { storedBlocks } from "./stored-blocks.js";
import { fileToBlock } from "./to-blocks.js";

/**
 * Parts of the messages that Anthropic cannot hold and that no stored block stands for: audio
 * (Claude takes none), and files other than PDF, text and JPEG/PNG/GIF/WebP images.
 * `toAnthropic` refuses them rather than drop them; `validateMessages` reports them.
 */
export function anthropicUnsupportedParts(messages: readonly ChatMessage[]): MessageProblem[] {
  const problems: MessageProblem[] = [];
  messages.forEach((message, index) => {
    const content = message.content;
    if (!Array.isArray(content)) return;
    const found: MessageProblem[] = [];
    content.forEach((part, partIndex) => {
      const path = `content[${partIndex}]`;
      if (part.type === "input_audio") {
        found.push({
          index,
          path,
          kind: "unsupported_part",
          message:
            "an input_audio part has no Anthropic equivalent (Claude takes no audio); transcribe it into text, or send this conversation in the openai format",
        });
      } else if (part.type === "file" && fileToBlock(part) === undefined) {
        const type = fileDataUrl(part.file.file_data ?? "").mediaType;
        found.push({
          index,
          path,
          kind: "unsupported_part",
          message: `a file of type ${type} has no Anthropic equivalent (documents are PDF or plain text, images JPEG, PNG, GIF or WebP); convert it to PDF or text, or send this conversation in the openai format`,
        });
      }
    });
    if (found.length > 0 && storedBlocks(message) === undefined) problems.push(...found);
  });
  return problems;
}
