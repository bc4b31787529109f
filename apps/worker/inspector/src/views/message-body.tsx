/**
 * @module views/message-body
 * A transcript message's text and tool calls, as text: long text is cut to a
 * preview that opens in full on demand. Transcript text is untrusted (tool
 * output, web pages, model output) and never becomes markup.
 */

import { useState } from "preact/hooks";
import type { ChatLike } from "../api/types.ts";
import { contentText, toolCalls } from "../model/messages.ts";

const PREVIEW_CHARS = 700;

export function LongText({ text, label }: { text: string; label: string }) {
  const [open, setOpen] = useState(false);
  if (text === "") return null;
  const long = text.length > PREVIEW_CHARS;
  return (
    <div class="long-text">
      <pre class="text">{long && !open ? `${text.slice(0, PREVIEW_CHARS)}…` : text}</pre>
      {long ? (
        <button type="button" class="link" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open
            ? `Show less of ${label}`
            : `Show all of ${label} (${text.length.toLocaleString("en-US")} characters)`}
        </button>
      ) : null}
    </div>
  );
}

export function MessageBody({ message }: { message: ChatLike }) {
  const calls = toolCalls(message);
  return (
    <>
      <LongText text={contentText(message)} label="this message" />
      {calls.length === 0 ? null : (
        <ul class="tool-calls">
          {calls.map((call) => (
            <li key={call.id}>
              <span class="muted">calls</span> <code>{call.name}</code>{" "}
              <span class="muted">({call.id})</span>
              <LongText text={call.arguments} label="the arguments" />
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
