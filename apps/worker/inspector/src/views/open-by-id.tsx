/**
 * @module views/open-by-id
 * A box to open a session by its id (the way in while the deployment has no
 * session list, and a shortcut when it has one).
 */

import { useState } from "preact/hooks";
import { navigate } from "../routing/use-route.ts";

export function OpenById() {
  const [id, setId] = useState("");
  return (
    <form
      class="open-by-id"
      onSubmit={(event) => {
        event.preventDefault();
        const trimmed = id.trim();
        if (trimmed !== "") navigate({ view: "session", id: trimmed, tab: "overview" });
      }}
    >
      <label for="open-session-id">Open a session by id</label>
      <input
        id="open-session-id"
        name="session-id"
        value={id}
        placeholder="e.g. agent-run-42"
        autocomplete="off"
        spellcheck={false}
        onInput={(e) => setId(e.currentTarget.value)}
      />
      <button type="submit">Open</button>
    </form>
  );
}
