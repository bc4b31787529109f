/**
 * @module test-support/summary-replies
 * The test server's (`@condense/test-servers`) template summaries, with the
 * engine's own sections, for the tests of the LLM summarizer and the memory
 * flush.
 */

import {
  type Handler,
  type ReceivedRequest,
  templateHandler as sectionsHandler,
  templateSummary as sectionsSummary,
} from "@condense/test-servers";
import { SUMMARY_SECTIONS } from "../summary/template.js";

/** A valid summary of request number `index` (see the server's `templateSummary`). */
export function templateSummary(request: ReceivedRequest, index = 0): string {
  return sectionsSummary(SUMMARY_SECTIONS, request, index);
}

/** Every request gets `templateSummary`. */
export const templateHandler: Handler = sectionsHandler(SUMMARY_SECTIONS);
