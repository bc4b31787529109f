/**
 * @module harness/agent-setups
 * How each real CLI is started against a base URL: the environment variables
 * and config files it needs (written into its own temporary HOME), and its
 * headless command line. Everything else of the machine's environment is left
 * out (no provider key, proxy or config of the developer's leaks in), and each
 * CLI's telemetry, update checks and auto-updaters are off. The gateway
 * settings are the recipes `pnpm start` prints (`@condense/worker/agent-recipes`),
 * with the agent's own provider key variable: only the test settings are added
 * here.
 */

import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import {
  claudeCodeRecipe,
  codexRecipe,
  geminiCliRecipe,
  opencodeRecipe,
  piRecipe,
  qwenCodeRecipe,
  type RecipeFile,
} from "@condense/worker/agent-recipes";
import type { AgentName } from "../model/dialects.ts";
import type { ProtocolName } from "../upstream/wire.ts";
import { agentBin } from "./agent-clis.ts";

export interface LaunchOptions {
  /** A fresh directory used as HOME (and config dir) for this run. */
  home: string;
  workspace: string;
  /** The API base URL in the form the agent expects (see each setup's `baseUrl`). */
  baseUrl: string;
  apiKey: string;
  /** Extra request headers (X-Condense-Context-Window; X-Condense-Session for an agent that names no session). */
  headers: Record<string, string>;
  prompt: string;
}

export interface Launch {
  command: string;
  args: string[];
  env: Record<string, string>;
}

export interface AgentSetup {
  /** Unique per setup (a CLI may have several, e.g. with another model). */
  name: string;
  /** Whose tools the model calls. */
  dialect: AgentName;
  /** The package pinned in clis/package.json (`harness/agent-clis`). */
  packageName: string;
  protocol: ProtocolName;
  /** The base URL for an origin and path prefix: what the CLI appends its request path to. */
  baseUrl(root: string): string;
  /** Whether the CLI names its session itself, so that no X-Condense-Session is configured for it. */
  identifies: boolean;
  launch(options: LaunchOptions): Launch;
}

/** What every CLI gets: a PATH with node and the basic tools, a HOME of its own, a UTF-8 locale. */
function baseEnv(home: string): Record<string, string> {
  return {
    PATH: [dirname(process.execPath), "/usr/local/bin", "/usr/bin", "/bin"].join(":"),
    HOME: home,
    TMPDIR: join(home, "tmp"),
    LANG: "C.UTF-8",
    TERM: "dumb",
    NO_COLOR: "1",
    // Nothing the CLIs might install at run time can reach the registry: a refused loopback port.
    npm_config_registry: "http://127.0.0.1:9/",
  };
}

function prepareHome(home: string): void {
  mkdirSync(join(home, "tmp"), { recursive: true });
}

/** Writes a recipe's files into HOME; the path of each, in order. */
function writeFiles(home: string, files: readonly RecipeFile[]): string[] {
  return files.map((file) => {
    const path = join(home, file.path);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, file.content);
    return path;
  });
}

export const claudeCode: AgentSetup = {
  name: "claude-code",
  dialect: "claude-code",
  packageName: "@anthropic-ai/claude-code",
  protocol: "anthropic",
  // The Anthropic SDK appends /v1/messages.
  baseUrl: (root) => root,
  identifies: true,
  launch(options) {
    prepareHome(options.home);
    const recipe = claudeCodeRecipe({
      baseUrl: options.baseUrl,
      model: "claude-sonnet-4-5",
      headers: options.headers,
    });
    return {
      command: agentBin("claude"),
      args: [
        "-p",
        options.prompt,
        "--output-format",
        "stream-json",
        "--verbose",
        "--max-turns",
        "100",
        "--permission-mode",
        "acceptEdits",
        "--allowedTools",
        "Bash,Read,Write",
      ],
      env: {
        ...baseEnv(options.home),
        CLAUDE_CONFIG_DIR: join(options.home, ".claude"),
        ...recipe.env,
        [recipe.keyVariable]: options.apiKey,
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        DISABLE_AUTOUPDATER: "1",
        DISABLE_TELEMETRY: "1",
        DISABLE_ERROR_REPORTING: "1",
      },
    };
  },
};

export const codex: AgentSetup = {
  name: "codex",
  dialect: "codex",
  packageName: "@openai/codex",
  protocol: "responses",
  // Codex appends /responses.
  baseUrl: (root) => `${root}/v1`,
  identifies: true,
  launch(options) {
    prepareHome(options.home);
    const codexHome = join(options.home, ".codex");
    const recipe = codexRecipe(
      { baseUrl: options.baseUrl, model: "gpt-5.5-codex", headers: options.headers },
      [
        // Codex compacts by itself near the window it believes in; the gateway is the one to do it here.
        "model_context_window = 400000",
        "check_for_update_on_startup = false",
        "",
        "[analytics]",
        "enabled = false",
      ],
    );
    writeFiles(options.home, recipe.files);
    return {
      command: agentBin("codex"),
      args: [
        "exec",
        "--skip-git-repo-check",
        "--dangerously-bypass-approvals-and-sandbox",
        "--json",
        "-C",
        options.workspace,
        options.prompt,
      ],
      env: {
        ...baseEnv(options.home),
        CODEX_HOME: codexHome,
        [recipe.keyVariable]: options.apiKey,
      },
    };
  },
};

export const opencode: AgentSetup = {
  name: "opencode",
  dialect: "opencode",
  packageName: "opencode-ai",
  protocol: "chat",
  // @ai-sdk/openai-compatible appends /chat/completions.
  baseUrl: (root) => `${root}/v1`,
  identifies: true,
  launch(options) {
    prepareHome(options.home);
    const recipe = opencodeRecipe(
      { baseUrl: options.baseUrl, model: "e2e-model", headers: options.headers },
      {
        autoupdate: false,
        share: "disabled",
        permission: { bash: "allow", edit: "allow", read: "allow", external_directory: "allow" },
      },
      // opencode compacts by itself near this limit; the gateway is the one to do it here.
      { context: 400_000, output: 8192 },
    );
    const [configPath = ""] = writeFiles(options.home, recipe.files);
    return {
      command: agentBin("opencode"),
      args: ["run", "--pure", "--format", "json", options.prompt],
      env: {
        ...baseEnv(options.home),
        OPENCODE_CONFIG: configPath,
        [recipe.keyVariable]: options.apiKey,
        OPENCODE_DISABLE_AUTOUPDATE: "1",
        OPENCODE_DISABLE_MODELS_FETCH: "1",
        OPENCODE_DISABLE_DEFAULT_PLUGINS: "1",
        OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
        OPENCODE_DISABLE_SHARE: "1",
      },
    };
  },
};

/** pi on one protocol: a custom provider in its models.json, and its print mode. */
function piOn(
  name: string,
  protocol: Exclude<ProtocolName, "gemini">,
  model: Record<string, unknown>,
): AgentSetup {
  return {
    name,
    dialect: "pi",
    packageName: "@mariozechner/pi-coding-agent",
    protocol,
    // pi's OpenAI APIs append /chat/completions or /responses; its Anthropic one, /v1/messages.
    baseUrl: (root) => (protocol === "anthropic" ? root : `${root}/v1`),
    // pi sends `session_id` (and `prompt_cache_key`) on Responses only.
    identifies: protocol === "responses",
    launch(options) {
      prepareHome(options.home);
      const agentDir = join(options.home, ".pi", "agent");
      const recipe = piRecipe(
        { baseUrl: options.baseUrl, model: String(model.id), headers: options.headers },
        protocol,
        // pi compacts by itself near this window; the gateway is the one to do it here.
        { contextWindow: 400_000, maxTokens: 8192, ...model },
      );
      writeFiles(options.home, recipe.files);
      writeFileSync(
        join(agentDir, "settings.json"),
        JSON.stringify({ enableInstallTelemetry: false }, null, 2),
      );
      return {
        command: agentBin("pi"),
        args: [
          "-p",
          "--mode",
          "json",
          "--provider",
          "condense",
          "--model",
          String(model.id),
          options.prompt,
        ],
        env: {
          ...baseEnv(options.home),
          PI_CODING_AGENT_DIR: agentDir,
          [recipe.keyVariable]: options.apiKey,
          PI_OFFLINE: "1",
          PI_TELEMETRY: "0",
          PI_SKIP_VERSION_CHECK: "1",
        },
      };
    },
  };
}

export const pi = piOn("pi", "chat", { id: "e2e-model" });
/** pi as a second Anthropic client: its own cache markers, and thinking (reasoning on). */
export const piAnthropic = piOn("pi-anthropic", "anthropic", {
  id: "claude-sonnet-4-5",
  reasoning: true,
});
/** pi as a second Responses client: function calls only, no custom tool. */
export const piResponses = piOn("pi-responses", "responses", { id: "gpt-5.5", reasoning: true });

/**
 * Claude Code with an earlier model named (`ANTHROPIC_MODEL`): it then sends no `system` turns
 * inside `messages`, and gets further through a gateway that refuses those.
 */
export const claudeCodeOpus46: AgentSetup = {
  ...claudeCode,
  name: "claude-code-opus-4-6",
  launch(options) {
    const launch = claudeCode.launch(options);
    return { ...launch, env: { ...launch.env, ANTHROPIC_MODEL: "claude-opus-4-6" } };
  },
};

/** Telemetry, usage statistics and update checks off, in Gemini CLI's and Qwen Code's settings. */
const QUIET_SETTINGS = {
  general: { disableAutoUpdate: true, disableUpdateNag: true, enableAutoUpdate: false },
  privacy: { usageStatisticsEnabled: false },
  telemetry: { enabled: false },
};

export const geminiCli: AgentSetup = {
  name: "gemini-cli",
  dialect: "gemini-cli",
  // Gemini CLI on an API key sends no session id (only its user agent): its recipe names one.
  identifies: false,
  packageName: "@google/gemini-cli",
  protocol: "gemini",
  // @google/genai appends /v1beta/models/{model}:{method}.
  baseUrl: (root) => root,
  launch(options) {
    prepareHome(options.home);
    const recipe = geminiCliRecipe({
      baseUrl: options.baseUrl,
      model: "gemini-2.5-pro",
      headers: options.headers,
    });
    // Straight at the upstream the recipe's session header is not sent (nothing reads it there).
    const env = { ...recipe.env };
    if (Object.keys(options.headers).length === 0) delete env.GEMINI_CLI_CUSTOM_HEADERS;
    writeFiles(options.home, [
      {
        path: ".gemini/settings.json",
        content: JSON.stringify({
          ...QUIET_SETTINGS,
          security: { auth: { selectedType: "gemini-api-key" }, folderTrust: { enabled: false } },
          // Its model-asked loop check (every few turns past 30) sends the last 20 contents cut
          // mid-exchange — opening on a model's call, a call left unanswered — which Gemini's rules
          // refuse; the scripted model never loops.
          model: { disableLoopDetection: true },
        }),
      },
    ]);
    return {
      command: agentBin("gemini"),
      args: ["-p", options.prompt, "--approval-mode", "yolo", "--output-format", "json"],
      env: {
        ...baseEnv(options.home),
        ...env,
        [recipe.keyVariable]: options.apiKey,
        // It would otherwise start itself again with a larger heap.
        GEMINI_CLI_NO_RELAUNCH: "true",
        GEMINI_TELEMETRY_ENABLED: "false",
      },
    };
  },
};

export const qwenCode: AgentSetup = {
  name: "qwen-code",
  dialect: "qwen-code",
  // Its recipe has it send its own session id (`session_id`, from its `${session_id}` placeholder).
  identifies: true,
  packageName: "@qwen-code/qwen-code",
  protocol: "chat",
  // The openai SDK appends /chat/completions.
  baseUrl: (root) => `${root}/v1`,
  launch(options) {
    prepareHome(options.home);
    const recipe = qwenCodeRecipe(
      { baseUrl: options.baseUrl, model: "e2e-model", headers: options.headers },
      {
        ...QUIET_SETTINGS,
        // A one-shot prompt runs commands without a terminal, where Qwen Code 0.24 reads a
        // command's output only until the process exits and loses what is still in the pipe
        // (a short grep's output, about one time in four): its terminal (PTY) reads it all.
        tools: { shell: { enableInteractiveShell: true } },
      },
    );
    writeFiles(options.home, recipe.files);
    return {
      command: agentBin("qwen"),
      args: ["-p", options.prompt, "--approval-mode", "yolo", "--output-format", "json"],
      env: {
        ...baseEnv(options.home),
        [recipe.keyVariable]: options.apiKey,
        QWEN_CODE_NO_RELAUNCH: "true",
        QWEN_TELEMETRY_ENABLED: "false",
        QWEN_CODE_SUPPRESS_YOLO_WARNING: "1",
      },
    };
  },
};

export const AGENT_SETUPS: readonly AgentSetup[] = [
  claudeCode,
  claudeCodeOpus46,
  codex,
  opencode,
  pi,
  piAnthropic,
  piResponses,
  geminiCli,
  qwenCode,
];
