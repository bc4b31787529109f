/**
 * @module summary/extractive/extractive-budget
 * Renders an extractive plan (`summary/extractive/extractive-plan`) and fits it to the
 * token budget: each item of the plan's lists, in its trim order, is
 * shortened, cut to its floor, or dropped until the summary fits; a dropped
 * place line leaves its identifiers in a plain list. When the ledger alone is
 * over the budget, its oldest files and identifiers are left out with a line
 * pointing to recall (`lastResort`): the budget is a bound.
 */

import { countTokens } from "../../tokens/count.js";
import { packIdentifiers, verbatimIn } from "../ledger/ledger.js";
import type { SummarizeRequest } from "../summarizer.js";
import { type Item, NONE, overflowLine, type Pick, TRIMMED } from "../summary-lines.js";
import {
  REQUIRED_SECTIONS,
  renderSections,
  type SummarySection,
  TOOL_OUTPUTS_HEADING,
} from "../template.js";
import type { Plan } from "./extractive-plan.js";

function render(plan: Plan): string {
  return renderWith(plan, sectionBodies(plan));
}

/** Every section's body but Exact identifiers: what the identifier cap does not change. */
function sectionBodies(plan: Plan): {
  bodies: Partial<Record<SummarySection, string>>;
  places: IdentifierPlaces;
} {
  const bodies: Partial<Record<SummarySection, string>> = {};
  for (const [section, groups] of plan.sections) {
    const blocks: string[] = [];
    for (const group of groups) {
      const lines = group.lists.flat().map((item) => item.text);
      const left =
        group.overflow === undefined ? 0 : group.overflow.total - group.overflow.list.length;
      if (group.overflow !== undefined && left > 0)
        lines.push(overflowLine(left, group.overflow.noun));
      if (lines.length === 0) continue;
      blocks.push(
        group.heading === undefined ? lines.join("\n") : `${group.heading}\n${lines.join("\n")}`,
      );
    }
    bodies[section] = blocks.join("\n\n");
  }
  return { bodies, places: identifierPlaces(plan, Object.values(bodies).join("\n")) };
}

function renderWith(
  plan: Plan,
  parts: { bodies: Partial<Record<SummarySection, string>>; places: IdentifierPlaces },
): string {
  const bodies = { ...parts.bodies };
  bodies["Exact identifiers"] = identifiersBody(plan, parts.places);
  for (const section of REQUIRED_SECTIONS) {
    if (!bodies[section]?.trim()) bodies[section] = plan.trimmed.has(section) ? TRIMMED : NONE;
  }
  return renderSections(bodies);
}

/** The place lines that show identifiers no other section shows, and the identifiers left for a plain list. */
interface IdentifierPlaces {
  lines: string[];
  missing: string[];
}

function identifierPlaces(plan: Plan, shown: string): IdentifierPlaces {
  const isShown = verbatimIn(shown);
  const missing = new Set(plan.identifiers.filter((id) => !isShown(id)));
  const lines: string[] = [];
  for (const place of plan.places) {
    if (!(place.ids ?? []).some((id) => missing.has(id))) continue;
    lines.push(place.text);
    for (const id of missing) if (place.text.includes(id)) missing.delete(id);
  }
  return { lines, missing: [...missing] };
}

/**
 * The identifiers the other sections do not show, each beside where it was
 * named while its place line is kept, else in a plain list; then the tool
 * outputs worth fetching back and how many more there are.
 */
function identifiersBody(plan: Plan, places: IdentifierPlaces): string {
  const { missing } = places;
  const lines = [...places.lines];
  const cap = plan.identifierCap ?? missing.length;
  const listed = missing.slice(Math.max(0, missing.length - cap));
  if (listed.length > 0) lines.push(packIdentifiers(listed));
  if (listed.length < missing.length)
    lines.push(overflowLine(missing.length - listed.length, "identifiers"));
  const blocks = lines.length > 0 ? [lines.join("\n")] : [];
  const more = plan.outputsTotal - plan.outputs.length;
  const moreLine = `- ${more}${plan.outputs.length > 0 ? " more" : ""} tool output${more === 1 ? "" : "s"}, retrievable by tool call id.`;
  if (plan.outputs.length > 0) {
    const list = plan.outputs.map((item) => item.text);
    if (more > 0) list.push(moreLine);
    blocks.push(`${TOOL_OUTPUTS_HEADING}\n${list.join("\n")}`);
  } else if (more > 0) {
    blocks.push(moreLine);
  }
  return blocks.join("\n\n");
}

export function fitToBudget(plan: Plan, request: SummarizeRequest): string {
  // The last resort's search counts the summary it settles on; the second trim starts from it.
  const counted = new Map<string, number>();
  const count = (text: string): number => {
    const known = counted.get(text);
    if (known !== undefined) return known;
    const tokens = countTokens(text, request.model);
    if (text.length > 10_000) counted.set(text, tokens);
    return tokens;
  };
  // What the summary is for (blocked work, next steps, pending asks, the goal) outlives the
  // ledger's oldest files and identifiers, which recall still finds.
  const first = trim(plan, request, count, plan.essentialsFrom);
  if (first.total <= request.maxTokens) return first.summary;
  lastResort(plan, request.maxTokens, count);
  return trim(plan, request, count, plan.trimOrder.length).summary;
}

/** Trims the lists of `plan.trimOrder` before `end`, in order, until the summary fits. */
function trim(
  plan: Plan,
  request: SummarizeRequest,
  count: (text: string) => number,
  end: number,
): { summary: string; total: number } {
  let summary = render(plan);
  let total = count(summary);
  let slack = 0;
  // Trimming only ever makes items less trimmable: the lists run out in trim order, and in a list
  // trimmed from the front the items before the first trimmable one stay as they are. Cursors keep
  // finding the next item linear in the number of items (a session can touch thousands of files).
  let current = 0;
  const fronts = new Map<Item[], number>();
  const nextItem = (): { list: Plan["trimOrder"][number]; index: number } | undefined => {
    for (; current < end; current++) {
      const list = plan.trimOrder[current];
      if (list === undefined) break;
      const index = pickIndex(list.items, list.pick, fronts);
      if (index !== -1) return { list, index };
    }
    return undefined;
  };
  for (let round = 0; round < 12 && total > request.maxTokens; round++) {
    let estimate = total;
    const goal = request.maxTokens - slack;
    while (estimate > goal) {
      const next = nextItem();
      const item = next?.list.items[next.index];
      if (next === undefined || item === undefined) break;
      item.cost ??= count(item.text) + 1;
      const replacement = item.short ?? item.floor;
      if (replacement !== undefined) {
        const cost = count(replacement) + 1;
        estimate -= item.cost - cost;
        item.text = replacement;
        item.cost = cost;
        delete item.short;
      } else {
        // A dropped place line leaves its identifiers in the plain list.
        const left = item.ids === undefined ? 0 : count(item.ids.join(", "));
        estimate -= item.cost - left;
        next.list.items.splice(next.index, 1);
      }
      markTrimmed(plan, next.list.items);
    }
    summary = render(plan);
    total = count(summary);
    if (nextItem() === undefined) break;
    slack += Math.max(16, Math.ceil(request.maxTokens * 0.02));
  }
  return { summary, total };
}

/**
 * The budget is a bound: when everything trimmable is trimmed and the ledger alone is over it, the
 * files lists lose their oldest lines (their paths join the identifiers no other line shows), then
 * that list keeps only its newest identifiers; each cut is counted in a line pointing to recall
 * (the ledger still carries them, and the transcript holds them). Only the template itself can
 * stay over the budget.
 */
function lastResort(plan: Plan, maxTokens: number, count: (text: string) => number): void {
  // A path costs less in the packed list than on a line of its own: the files lines go first.
  for (const list of [plan.files.read, plan.files.modified]) list.splice(0, list.length);
  // Only the cap changes from here on: the other sections and the place lines are rendered once.
  const parts = sectionBodies(plan);
  plan.identifierCap = 0;
  const shown = verbatimIn(renderWith(plan, parts));
  const unshown = plan.identifiers.filter((id) => !shown(id)).length;
  plan.identifierCap = largest(unshown, (cap) => {
    plan.identifierCap = cap;
    return count(renderWith(plan, parts)) <= maxTokens;
  });
}

/** The largest n in [0, max] for which `ok(n)` holds, `ok` holding for all n below one that holds (0 when none does). */
function largest(max: number, ok: (n: number) => boolean): number {
  let low = 0;
  let high = max;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (ok(middle)) low = middle;
    else high = middle - 1;
  }
  return low;
}

/** Whether trimming can still take something from `item`. */
function trimmable(item: Item): boolean {
  return item.short !== undefined || item.floor === undefined || item.text !== item.floor;
}

/** Remembers which section a trimmed list belongs to, so an emptied required section says it was trimmed. */
function markTrimmed(plan: Plan, list: Item[]): void {
  for (const [section, groups] of plan.sections) {
    if (groups.some((group) => group.lists.includes(list))) plan.trimmed.add(section);
  }
}

function pickIndex(list: readonly Item[], pick: Pick, fronts: Map<Item[], number>): number {
  if (pick === "last") return list.findLastIndex(trimmable);
  if (pick === "first") {
    let index = fronts.get(list as Item[]) ?? 0;
    while (index < list.length && !trimmable(list[index] as Item)) index++;
    fronts.set(list as Item[], index);
    return index < list.length ? index : -1;
  }
  const first = list.findIndex(trimmable);
  const unkept = list.findIndex((item) => item.keep !== true && trimmable(item));
  return unkept === -1 ? first : unkept;
}
