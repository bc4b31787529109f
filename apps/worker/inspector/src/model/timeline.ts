/**
 * @module model/timeline
 * The series the overview's chart draws, derived from what the API serves
 * today: the tokens of each transcript message (`/transcript`) and each
 * compaction's range and tokens before and after (`/compactions`).
 *
 * - raw: the whole transcript up to each message (what would be sent without Condense);
 * - context: grows by each appended message; at a compaction's snapshot (the last seq it
 *   folded in, `range.toSeq`) it steps to the API's `tokensBefore` and drops to its
 *   `tokensAfter`, and grows again from there. Between compactions the figure is the sum of
 *   stored counts, so it can differ slightly from the service's (pinned messages, empty turns).
 */

export interface MessageTokens {
  seq: number;
  tokens: number;
}

export interface CompactionTokens {
  id: number;
  tier: number;
  trigger: string;
  tokensBefore: number;
  tokensAfter: number;
  range: { fromSeq: number; toSeq: number };
}

export interface TimelinePoint {
  seq: number;
  raw: number;
  context: number;
}

export interface CompactionMark extends CompactionTokens {
  /** Where the compaction sits on the chart: the last seq it folded in. */
  seq: number;
}

export interface Timeline {
  /** In drawing order; a compaction adds two points at its seq (the step up and the drop). */
  points: TimelinePoint[];
  marks: CompactionMark[];
  /** Tokens of the whole transcript read. */
  rawTotal: number;
}

export function buildTimeline(
  messages: readonly MessageTokens[],
  compactions: readonly CompactionTokens[],
): Timeline {
  const ordered = [...messages].sort((a, b) => a.seq - b.seq);
  const pending = [...compactions].sort((a, b) => a.id - b.id);
  const marks: CompactionMark[] = pending.map((event) => ({ ...event, seq: event.range.toSeq }));
  const points: TimelinePoint[] = [];
  let raw = 0;
  let context = 0;
  let next = 0;
  // Compactions are applied in commit order, each once the messages up to its snapshot are in.
  const applyUpTo = (seq: number) => {
    for (let mark = marks[next]; mark !== undefined && mark.seq <= seq; mark = marks[next]) {
      points.push({ seq: mark.seq, raw, context: mark.tokensBefore });
      points.push({ seq: mark.seq, raw, context: mark.tokensAfter });
      context = mark.tokensAfter;
      next++;
    }
  };
  for (const message of ordered) {
    applyUpTo(message.seq - 1);
    raw += message.tokens;
    context += message.tokens;
    points.push({ seq: message.seq, raw, context });
  }
  applyUpTo(Number.POSITIVE_INFINITY);
  return { points, marks, rawTotal: raw };
}
