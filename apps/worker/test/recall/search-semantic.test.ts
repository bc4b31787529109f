/**
 * @module test/recall/search-semantic
 * Optional semantic recall in session search, against fakes of Workers AI
 * and Vectorize (`semantic-fakes`): appended messages are embedded after the
 * append, in a namespace per session; a search finds a message by meaning
 * that BM25 misses, fuses the two rankings by reciprocal rank, applies its
 * filters to vector hits, and serves only rows the session's own FTS table
 * holds; a failing AI or index leaves BM25's answer exactly as it is; without
 * both bindings nothing is called; a deleted session's vectors are deleted.
 */

import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { SearchResponseBody } from "../../src/api/schemas";
import { textSnippet } from "../../src/session/recall/search";
import { append, call, freshSession, type Message, stubFor, waitFor } from "../support/helpers";
import { FakeAi, FakeIndex } from "../support/semantic-fakes";

const search = (id: string, query: string) =>
  call<SearchResponseBody>("GET", `/v1/sessions/${id}/search?q=${encodeURIComponent(query)}`);

/** A new session whose object's env carries `bindings` (the deployed one has none). */
async function sessionWith(bindings: { AI?: FakeAi; VECTORIZE?: FakeIndex }): Promise<string> {
  const id = freshSession("semantic");
  await runInDurableObject(stubFor("alice", id), (instance) => {
    Object.assign(instance, { env: { ...env, ...bindings } });
  });
  return id;
}

/** The session's vectors in `index` (their ids start with the session's own prefix). */
function vectorsOf(index: FakeIndex, namespace: string) {
  return [...index.vectors].filter(([, v]) => v.namespace === namespace);
}

async function appendAndEmbed(id: string, index: FakeIndex, messages: Message[]) {
  const before = index.vectors.size;
  const appended = await append(id, { messages });
  expect(appended.status).toBe(200);
  await waitFor(() => index.vectors.size === before + messages.length, "the embeddings");
}

const seqs = (reply: { body: SearchResponseBody }) => reply.body.results.map((r) => r.seq);

const FUSION: Message[] = [
  // BM25 ranks this first for "car" (shortest with the word); its embedding is near too.
  { role: "user", content: "the car and coffee" },
  // No word of "car": only its embedding is near.
  { role: "assistant", content: "an automobile" },
  // BM25 finds "car" here too; its embedding is far (mostly espresso).
  { role: "user", content: "car espresso espresso espresso espresso espresso" },
];

describe("semantic session search (fakes of Workers AI and Vectorize)", () => {
  it("embeds appended messages per session and finds a message by meaning BM25 misses", async () => {
    const ai = new FakeAi();
    const index = new FakeIndex();
    const id = await sessionWith({ AI: ai, VECTORIZE: index });
    await appendAndEmbed(id, index, [
      { role: "user", content: "my car broke down on the motorway" },
      { role: "assistant", content: "Call a tow service and tell me the plate." },
    ]);
    const [[vectorId, vector] = []] = [...index.vectors];
    // One namespace per session (the object's id, 64 hex digits); ids are the session's prefix and
    // the FTS rowid (seq × 4096 + piece), at most 64 bytes.
    expect(vector?.namespace).toMatch(/^[0-9a-f]{64}$/);
    expect(vectorId).toMatch(/^[0-9a-f]{40}\.\d+$/);
    expect(vector?.namespace?.startsWith(vectorId?.split(".")[0] ?? "-")).toBe(true);
    expect([...index.vectors.keys()].map((key) => key.split(".")[1]).sort()).toEqual([
      "4096",
      "8192",
    ]);

    const plain = freshSession("plain");
    await append(plain, {
      messages: [{ role: "user", content: "my car broke down on the motorway" }],
    });
    expect(seqs(await search(plain, "automobile"))).toEqual([]);

    const found = await search(id, "automobile");
    expect(found.status).toBe(200);
    expect(found.body.results).toHaveLength(1);
    expect(found.body.results[0]).toMatchObject({
      seq: 1,
      role: "user",
      snippet: "my car broke down on the motorway",
      inContext: true,
      pruned: false,
    });
  });

  it("fuses BM25 and embedding ranks: a message high in both first", async () => {
    const index = new FakeIndex();
    const id = await sessionWith({ AI: new FakeAi(), VECTORIZE: index });
    await appendAndEmbed(id, index, FUSION);
    const plain = freshSession("plain");
    await append(plain, { messages: FUSION });
    expect(seqs(await search(plain, "car"))).toEqual([1, 3]);
    const fused = await search(id, "car");
    expect(seqs(fused)).toEqual([1, 2, 3]);
    const scores = fused.body.results.map((r) => r.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    // A vector-only hit's snippet is its stored text.
    expect(fused.body.results[1]?.snippet).toBe("an automobile");
  });

  it("applies role and after filters to vector hits", async () => {
    const index = new FakeIndex();
    const id = await sessionWith({ AI: new FakeAi(), VECTORIZE: index });
    await appendAndEmbed(id, index, FUSION);
    expect(seqs(await search(id, "automobile"))).toEqual([2, 1]);
    const onlyUser = await call<SearchResponseBody>(
      "GET",
      `/v1/sessions/${id}/search?q=automobile&role=user`,
    );
    expect(seqs(onlyUser)).toEqual([1]);
    const later = await call<SearchResponseBody>(
      "GET",
      `/v1/sessions/${id}/search?q=automobile&after=1`,
    );
    expect(seqs(later)).toEqual([2]);
  });

  it("never serves a vector for a row the session's FTS table does not hold", async () => {
    const ai = new FakeAi();
    const index = new FakeIndex();
    const alice = await sessionWith({ AI: ai, VECTORIZE: index });
    const other = await sessionWith({ AI: ai, VECTORIZE: index });
    await appendAndEmbed(alice, index, [{ role: "user", content: "alice drives a vehicle" }]);
    await appendAndEmbed(other, index, [{ role: "user", content: "bob rides a bicycle" }]);
    // Both sessions have seq 1 (rowid 4096), and both vectors are kept: ids are per session.
    expect(index.vectors.size).toBe(2);
    expect(seqs(await search(other, "automobile"))).toEqual([]);

    const [[aliceId, aliceVector] = []] = [...index.vectors];
    const [[otherId, otherVector] = []] = [...index.vectors].slice(1);
    const otherNamespace = otherVector?.namespace;
    expect(aliceVector?.namespace).not.toBe(otherNamespace);
    if (aliceVector === undefined || otherId === undefined || aliceId === undefined) {
      throw new Error("missing vectors");
    }
    // A corrupted index: alice's vector in the other session's namespace (the other session holds
    // rowid 4096 too), and one under the other session's own prefix for a seq it never had.
    aliceVector.namespace = otherNamespace;
    const prefix = otherId.split(".")[0];
    index.vectors.set(`${prefix}.${99 * 4096}`, {
      values: [1, 0, 0, 0.01],
      namespace: otherNamespace,
    });
    expect(vectorsOf(index, otherNamespace ?? "")).toHaveLength(3);
    expect(seqs(await search(other, "automobile"))).toEqual([]);
    expect(seqs(await search(other, "vehicle"))).toEqual([]);
    expect(seqs(await search(other, "bicycle"))).toEqual([1]);
  });

  it("leaves BM25's answer exactly as it is when the AI or the index fails", async () => {
    const messages: Message[] = [...FUSION, { role: "assistant", content: "a car park" }];
    const plain = freshSession("plain");
    await append(plain, { messages });
    const expected = (await search(plain, "car")).body.results;
    expect(expected.map((r) => r.seq)).toEqual([4, 1, 3]);

    const ai = new FakeAi();
    ai.failing = true;
    const index = new FakeIndex();
    const failingAi = await sessionWith({ AI: ai, VECTORIZE: index });
    expect((await append(failingAi, { messages })).status).toBe(200);
    await waitFor(() => ai.calls > 0, "the embedding attempt");
    expect(index.vectors.size).toBe(0);
    const answered = await search(failingAi, "car");
    expect(answered.status).toBe(200);
    expect(answered.body.results).toEqual(expected);
    expect(ai.calls).toBe(2);
    expect(seqs(await search(failingAi, "vehicle"))).toEqual([]);

    const failingIndex = new FakeIndex();
    const indexFails = await sessionWith({ AI: new FakeAi(), VECTORIZE: failingIndex });
    await appendAndEmbed(indexFails, failingIndex, messages);
    failingIndex.failingQueries = true;
    expect((await search(indexFails, "car")).body.results).toEqual(expected);
  });

  it("calls nothing without both bindings", async () => {
    const ai = new FakeAi();
    const aiOnly = await sessionWith({ AI: ai });
    await append(aiOnly, { messages: FUSION });
    expect(seqs(await search(aiOnly, "car"))).toEqual([1, 3]);
    expect(seqs(await search(aiOnly, "vehicle"))).toEqual([]);
    const index = new FakeIndex();
    const indexOnly = await sessionWith({ VECTORIZE: index });
    await append(indexOnly, { messages: FUSION });
    expect(seqs(await search(indexOnly, "car"))).toEqual([1, 3]);
    await call("DELETE", `/v1/sessions/${indexOnly}`);
    expect(ai.calls).toBe(0);
    expect(index.calls).toBe(0);
  });

  it("answers a query with no word 400 before embedding it", async () => {
    const ai = new FakeAi();
    const id = await sessionWith({ AI: ai, VECTORIZE: new FakeIndex() });
    await append(id, { messages: [{ role: "user", content: "hello" }] });
    await waitFor(() => ai.calls === 1, "the embedding");
    const reply = await search(id, "?!");
    expect(reply.status).toBe(400);
    expect(ai.calls).toBe(1);
  });

  it("deletes a deleted session's vectors", async () => {
    const index = new FakeIndex();
    const id = await sessionWith({ AI: new FakeAi(), VECTORIZE: index });
    const keep = await sessionWith({ AI: new FakeAi(), VECTORIZE: index });
    await appendAndEmbed(id, index, FUSION);
    await appendAndEmbed(keep, index, [{ role: "user", content: "a vehicle" }]);
    expect((await call("DELETE", `/v1/sessions/${id}`)).status).toBe(200);
    await waitFor(() => index.vectors.size === 1, "the deletion");
    expect(seqs(await search(keep, "automobile"))).toEqual([1]);
  });
});

describe("textSnippet (vector-only hits)", () => {
  it("marks the query's words it finds, around the first", () => {
    const body = `${"filler ".repeat(30)}the Car, parked ${"more ".repeat(30)}`;
    expect(textSnippet(body, "car automobile")).toBe(
      "…filler filler filler filler filler filler filler the «Car,» parked more more more more more more…",
    );
    expect(textSnippet("an automobile", "car")).toBe("an automobile");
  });
});
