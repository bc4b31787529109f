/**
 * @module views/memory-view
 * The signed-in user's memories (`GET /v1/memory`): each with its kind and
 * the session and message it came from; one can be deleted (`DELETE
 * /v1/memory/{id}`) after a confirmation. Where the service answers 404 (a
 * deployment older than memory), it says so.
 */

import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { isRouteMissing } from "../api/inspector-client.ts";
import { readMemories } from "../api/list-data.ts";
import type { MemoryEntry } from "../api/types.ts";
import { useApi } from "../components/api-context.ts";
import { ErrorNote } from "../components/error-note.tsx";
import { useLoad } from "../components/use-load.ts";
import { formatTime } from "../format.ts";
import { routeHash } from "../routing/route.ts";

function Source({ memory }: { memory: MemoryEntry }) {
  if (memory.sourceSession === null) return <span class="muted">—</span>;
  const route =
    memory.sourceSeq === null
      ? ({ view: "session", id: memory.sourceSession, tab: "overview" } as const)
      : ({
          view: "session",
          id: memory.sourceSession,
          tab: "transcript",
          seq: memory.sourceSeq,
        } as const);
  return (
    <a href={routeHash(route)}>
      {memory.sourceSession}
      {memory.sourceSeq === null ? "" : ` #${memory.sourceSeq}`}
    </a>
  );
}

function DeleteButton({ memory, onDeleted }: { memory: MemoryEntry; onDeleted: () => void }) {
  const api = useApi();
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<unknown>(null);
  if (!confirming) {
    return (
      <button type="button" class="secondary" onClick={() => setConfirming(true)}>
        Delete
      </button>
    );
  }
  return (
    <span class="confirm">
      <button
        type="button"
        class="danger"
        onClick={async () => {
          try {
            await api.memory.remove(memory.id);
            onDeleted();
          } catch (failure) {
            setError(failure);
          }
        }}
      >
        Delete for good
      </button>
      <button type="button" class="secondary" onClick={() => setConfirming(false)}>
        Keep
      </button>
      {error === null ? null : <ErrorNote error={error} what="Deleting the memory" />}
    </span>
  );
}

export function MemoryView() {
  const api = useApi();
  const [memories, reload] = useLoad(() => readMemories(api), [api]);
  const [filter, setFilter] = useState("");

  let body: ComponentChildren;
  if (memories.state === "loading") body = <p aria-busy="true">Loading memories…</p>;
  else if (memories.state === "error") {
    body = isRouteMissing(memories.error) ? (
      <p class="note" role="status">
        Memory is not available on this deployment (<code>GET /v1/memory</code> answers 404).
      </p>
    ) : (
      <ErrorNote error={memories.error} what="Loading memories" />
    );
  } else if (memories.value.memories.length === 0) {
    body = <p class="note">No memories yet.</p>;
  } else {
    const all = memories.value.memories;
    const needle = filter.trim().toLowerCase();
    const shown = all.filter((m) => needle === "" || m.text.toLowerCase().includes(needle));
    body = (
      <>
        <div class="toolbar">
          <label for="memory-filter">Filter</label>
          <input
            id="memory-filter"
            type="search"
            value={filter}
            onInput={(e) => setFilter(e.currentTarget.value)}
          />
          <span class="muted" role="status">
            {shown.length} of {all.length}
            {memories.value.complete ? "" : "+"}
          </span>
        </div>
        <div class="table-scroll">
          <table class="memories">
            <thead>
              <tr>
                <th scope="col">Memory</th>
                <th scope="col">Kind</th>
                <th scope="col">Source</th>
                <th scope="col">Updated</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {shown.map((memory) => (
                <tr key={memory.id} data-id={memory.id}>
                  <td class="text">{memory.text}</td>
                  <td>{memory.kind}</td>
                  <td>
                    <Source memory={memory} />
                  </td>
                  <td>{formatTime(memory.updatedAt)}</td>
                  <td>
                    <DeleteButton memory={memory} onDeleted={reload} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </>
    );
  }
  return (
    <section aria-labelledby="memory-title">
      <h1 id="memory-title">Memory</h1>
      <p class="muted">
        What Condense remembers for you across sessions, and where each memory came from.
      </p>
      {body}
    </section>
  );
}
