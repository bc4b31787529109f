/**
 * @module user/user-object
 * One Durable Object per authenticated user (`USERS`, addressed by
 * `idFromName(userId)` and by nothing else): that user's list of sessions and
 * long-term memory, in its own SQLite tables (`user/schema`). Nothing in a
 * request can name another user's object, so one user's memory and sessions
 * simply do not exist for another (404, or absent from a list).
 *
 * RPC for the Worker's routes returns `RpcResult`s (API errors cross the
 * boundary as data); RPC for the other objects and tracks returns plain
 * values: session objects report their figures (`reportSession`,
 * `forgetSession`), the flush applies operations (`applyMemoryOperations`),
 * and a context fetches what fits its budget (`relevantMemories`).
 */

import { DurableObject } from "cloudflare:workers";
import type { MemoryEntry, MemoryOperation } from "@condense/core";
import { type RpcResult, rpcResult } from "../api/rpc-result";
import { logLine } from "../log/log-lines";
import { fuseRankings, type SemanticIndex, semanticIndexFor } from "../semantic/semantic-index";
import { fitToBudget } from "./memory-block";
import {
  type ApplyResult,
  addMemory,
  allMemories,
  applyOperations,
  deleteMemory,
  ftsSearch,
  getMemory,
  listMemories,
  type MemoryHit,
  type NewMemory,
  updateMemory,
} from "./memory-store";
import { migrateUser } from "./schema";
import {
  listSessions,
  removeSession,
  type SessionListEntry,
  type SessionReport,
  upsertSession,
} from "./session-list";

/** The model whose tokenizer measures the budget here; the session trims again with its own. */
const BUDGET_MODEL = "gpt-4o";
/** How many BM25 (and semantic) candidates a ranking considers. */
const CANDIDATES = 100;

export interface MemorySearchBody {
  query: string;
  results: MemoryHit[];
}

export class UserObject extends DurableObject<Env> {
  #migrated = false;

  #sql(): SqlStorage {
    if (!this.#migrated) {
      migrateUser(this.ctx.storage);
      this.#migrated = true;
    }
    return this.ctx.storage.sql;
  }

  #semantic(): SemanticIndex | undefined {
    return semanticIndexFor(this.env, this.ctx.id.toString());
  }

  /** Keeps the semantic index in step; a failure only leaves search to BM25 for those entries. */
  async #index(put: MemoryEntry[], removed: string[] = []): Promise<void> {
    const semantic = this.#semantic();
    if (semantic === undefined) return;
    try {
      await semantic.put(put);
      await semantic.remove(removed);
    } catch (error) {
      logLine({ type: "memory_index_failed", error: String(error) });
    }
  }

  /** Entry ids ranked by BM25 and, when configured, by embeddings, fused. */
  async #rank(
    text: string,
    mode: "all" | "any",
  ): Promise<{ hits: Map<string, MemoryHit>; order: Array<[string, number]> }> {
    const hits = ftsSearch(this.#sql(), text, CANDIDATES, mode);
    const byId = new Map(hits.map((hit) => [hit.memory.id, hit]));
    const semantic = this.#semantic();
    if (semantic === undefined) {
      return { hits: byId, order: hits.map((hit) => [hit.memory.id, hit.score]) };
    }
    let nearest: string[] = [];
    try {
      nearest = await semantic.rank(text, CANDIDATES);
    } catch (error) {
      logLine({ type: "memory_semantic_failed", error: String(error) });
    }
    return { hits: byId, order: fuseRankings([hits.map((hit) => hit.memory.id), nearest]) };
  }

  // ------------------------------------------------------------ sessions

  async reportSession(report: SessionReport): Promise<void> {
    upsertSession(this.#sql(), report);
  }

  async forgetSession(sessionId: string): Promise<void> {
    removeSession(this.#sql(), sessionId);
  }

  async sessions(
    limit: number,
    cursor?: string,
  ): Promise<RpcResult<{ sessions: SessionListEntry[]; nextCursor: string | null }>> {
    return rpcResult(() => listSessions(this.#sql(), { limit, cursor }));
  }

  // ------------------------------------------------------------ memory (routes)

  async listMemories(
    limit: number,
    cursor?: string,
  ): Promise<RpcResult<{ memories: MemoryEntry[]; nextCursor: string | null }>> {
    return rpcResult(() => listMemories(this.#sql(), { limit, cursor }));
  }

  async createMemory(input: NewMemory): Promise<RpcResult<MemoryEntry>> {
    // Migrated outside the transaction: a refused write rolls back, and must not take the tables with it.
    const sql = this.#sql();
    const result = await rpcResult(() =>
      this.ctx.storage.transactionSync(() => addMemory(sql, input, Date.now())),
    );
    if (result.ok) await this.#index([result.value]);
    return result;
  }

  async getMemory(id: string): Promise<RpcResult<MemoryEntry>> {
    return rpcResult(() => getMemory(this.#sql(), id));
  }

  async updateMemory(
    id: string,
    patch: { text?: string; kind?: string },
  ): Promise<RpcResult<MemoryEntry>> {
    const sql = this.#sql();
    const result = await rpcResult(() =>
      this.ctx.storage.transactionSync(() => updateMemory(sql, id, patch, Date.now())),
    );
    if (result.ok && patch.text !== undefined) await this.#index([result.value]);
    return result;
  }

  async deleteMemory(id: string): Promise<RpcResult<{ deleted: true; id: string }>> {
    const sql = this.#sql();
    const result = await rpcResult(() => {
      this.ctx.storage.transactionSync(() => deleteMemory(sql, id));
      return { deleted: true as const, id };
    });
    if (result.ok) await this.#index([], [id]);
    return result;
  }

  async searchMemories(q: string, limit: number): Promise<RpcResult<MemorySearchBody>> {
    return rpcResult(async () => {
      const { hits, order } = await this.#rank(q, "all");
      const stored = allMemoriesById(this.#sql());
      const results: MemoryHit[] = [];
      for (const [id, score] of order) {
        if (results.length >= limit) break;
        const hit = hits.get(id);
        if (hit !== undefined) {
          results.push({ ...hit, score });
          continue;
        }
        // A semantic match: served only if this user's store holds it (the index is not the truth).
        const entry = stored.get(id);
        if (entry !== undefined) results.push({ memory: entry, snippet: clip(entry.text), score });
      }
      return { query: q, results };
    });
  }

  // ------------------------------------------------------------ memory (other objects)

  /** Every entry, newest first. */
  async memories(): Promise<MemoryEntry[]> {
    return allMemories(this.#sql());
  }

  /** A flush's operations, each checked on its own (secrets, limits, unknown ids are skipped). */
  async applyMemoryOperations(
    ops: MemoryOperation[],
    source: { sessionId: string },
  ): Promise<ApplyResult> {
    const sql = this.#sql();
    const before = new Set(allMemories(sql).map((entry) => entry.id));
    const result = this.ctx.storage.transactionSync(() =>
      applyOperations(sql, ops, source, Date.now()),
    );
    const after = new Set(allMemories(sql).map((entry) => entry.id));
    await this.#index(
      result.entries.filter((entry) => after.has(entry.id)),
      [...before].filter((id) => !after.has(id)),
    );
    return result;
  }

  /**
   * The entries most relevant to `query` (a session's recent text) that fit `budgetTokens` as a
   * memory block: BM25 (fused with embeddings when configured) first, then the rest newest first.
   */
  async relevantMemories(query: string, budgetTokens: number): Promise<MemoryEntry[]> {
    const all = allMemories(this.#sql());
    if (all.length === 0 || budgetTokens <= 0) return [];
    let order: Array<[string, number]> = [];
    try {
      order = (await this.#rank(query, "any")).order;
    } catch (error) {
      // A query SQLite refuses ranks nothing; recency still orders the entries.
      logLine({ type: "memory_rank_failed", error: String(error) });
    }
    const byId = new Map(all.map((entry) => [entry.id, entry]));
    const ranked: MemoryEntry[] = [];
    for (const [id] of order) {
      const entry = byId.get(id);
      if (entry === undefined) continue;
      ranked.push(entry);
      byId.delete(id);
    }
    // The rest by recency of change.
    const rest = [...byId.values()].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
    return fitToBudget([...ranked, ...rest], budgetTokens, BUDGET_MODEL);
  }
}

function allMemoriesById(sql: SqlStorage): Map<string, MemoryEntry> {
  return new Map(allMemories(sql).map((entry) => [entry.id, entry]));
}

function clip(text: string, max = 160): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
