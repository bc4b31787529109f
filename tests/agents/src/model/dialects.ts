/**
 * @module model/dialects
 * Each agent's own tool names and argument shapes, as its tool definitions
 * declare them: the scripted model speaks them so the real CLI runs the tools
 * itself (reads the file, runs the shell command, writes the report).
 */

import { join } from "node:path";
import type { ToolCall } from "./model-turn.ts";
import type { TaskAction } from "./task.ts";

export type AgentName = "claude-code" | "codex" | "opencode" | "pi" | "gemini-cli" | "qwen-code";

/** The tool call that carries out `action` in `agent`'s tools, with the call id given. */
export function toolCallFor(
  agent: AgentName,
  action: Exclude<TaskAction, { kind: "finish" }>,
  id: string,
  workspace: string,
): ToolCall {
  const call = (name: string, input: Record<string, unknown>): ToolCall => ({
    kind: "function",
    id,
    name,
    input,
  });
  switch (agent) {
    case "claude-code":
      if (action.kind === "read") return call("Read", { file_path: join(workspace, action.path) });
      if (action.kind === "write") {
        return call("Write", { file_path: join(workspace, action.path), content: action.content });
      }
      return call("Bash", { command: action.command, description: "Run a step of the task" });
    case "codex":
      if (action.kind === "read") return call("exec_command", { cmd: `cat ${action.path}` });
      if (action.kind === "write") {
        // apply_patch is a custom (free-form) tool: its input is the patch itself, not JSON.
        const lines = action.content.replace(/\n$/, "").split("\n");
        const patch = [
          "*** Begin Patch",
          `*** Add File: ${action.path}`,
          ...lines.map((line) => `+${line}`),
          "*** End Patch",
        ].join("\n");
        return { kind: "custom", id, name: "apply_patch", input: patch };
      }
      return call("exec_command", { cmd: action.command });
    case "opencode":
      if (action.kind === "read") return call("read", { filePath: join(workspace, action.path) });
      if (action.kind === "write") {
        return call("write", { filePath: join(workspace, action.path), content: action.content });
      }
      return call("bash", { command: action.command, description: "Run a step of the task" });
    case "gemini-cli":
    case "qwen-code":
      // Qwen Code is a fork of Gemini CLI: the same tools, its shell tool with `is_background`.
      if (action.kind === "read")
        return call("read_file", { file_path: join(workspace, action.path) });
      if (action.kind === "write") {
        return call("write_file", {
          file_path: join(workspace, action.path),
          content: action.content,
        });
      }
      return agent === "gemini-cli"
        ? call("run_shell_command", {
            command: action.command,
            description: "Run a step of the task",
          })
        : call("run_shell_command", { command: action.command, is_background: false });
    case "pi":
      if (action.kind === "read") return call("read", { path: action.path });
      if (action.kind === "write")
        return call("write", { path: action.path, content: action.content });
      return call("bash", { command: action.command });
  }
}
