/**
 * @module @condense/test-fixtures
 * What the tests of several packages generate and read (private, never
 * published): fast-check arbitraries for message text and for conversations
 * as an agent appends them. The recorded transcripts are
 * `@condense/test-fixtures/transcripts` (Node only).
 */

export {
  type AgentEvent,
  type AgentMessage,
  type AgentState,
  type AgentToolCall,
  agentMessages,
  arbAgentConversation,
  arbAgentEvent,
} from "./agent-conversations.ts";
export { arbText, arbVisibleText } from "./text-arbitraries.ts";
