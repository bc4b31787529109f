/**
 * @module harness/agent-setups
 * How each real CLI is started against a base URL: the environment variables
 * and config files it needs (written into its own temporary HOME), and its
 * headless command line. Everything else of the machine's environment is left
 * out (no provider key, proxy or config of the developer's leaks in), and each
 * CLI's telemetry, update checks and auto-updaters are off. These are the
 * settings `docs/notes/agents.md` documents for users.
 */

import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
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
  /** Extra request headers (X-Condense-Session, X-Condense-Context-Window). */
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

export const claudeCode: AgentSetup = {
  name: "claude-code",
  dialect: "claude-code",
  packageName: "@anthropic-ai/claude-code",
  protocol: "anthropic",
  // The Anthropic SDK appends /v1/messages.
  baseUrl: (root) => root,
  launch(options) {
    prepareHome(options.home);
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
        ANTHROPIC_BASE_URL: options.baseUrl,
        ANTHROPIC_API_KEY: options.apiKey,
        ANTHROPIC_CUSTOM_HEADERS: Object.entries(options.headers)
          .map(([name, value]) => `${name}: ${value}`)
          .join("\n"),
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        DISABLE_AUTOUPDATER: "1",
        DISABLE_TELEMETRY: "1",
        DISABLE_ERROR_REPORTING: "1",
      },
    };
  },
};

function tomlString(value: string): string {
  return JSON.stringify(value);
}

export const codex: AgentSetup = {
  name: "codex",
  dialect: "codex",
  packageName: "@openai/codex",
  protocol: "responses",
  // Codex appends /responses.
  baseUrl: (root) => `${root}/v1`,
  launch(options) {
    prepareHome(options.home);
    const codexHome = join(options.home, ".codex");
    mkdirSync(codexHome, { recursive: true });
    const headers = Object.entries(options.headers)
      .map(([name, value]) => `${tomlString(name)} = ${tomlString(value)}`)
      .join(", ");
    writeFileSync(
      join(codexHome, "config.toml"),
      [
        'model = "gpt-5.5-codex"',
        'model_provider = "condense"',
        // Codex compacts by itself near the window it believes in; the gateway is the one to do it here.
        "model_context_window = 400000",
        "check_for_update_on_startup = false",
        "",
        "[analytics]",
        "enabled = false",
        "",
        "[model_providers.condense]",
        'name = "Condense"',
        `base_url = ${tomlString(options.baseUrl)}`,
        'env_key = "CONDENSE_API_KEY"',
        'wire_api = "responses"',
        `http_headers = { ${headers} }`,
        "",
      ].join("\n"),
    );
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
        CONDENSE_API_KEY: options.apiKey,
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
  launch(options) {
    prepareHome(options.home);
    const config = {
      $schema: "https://opencode.ai/config.json",
      autoupdate: false,
      share: "disabled",
      model: "condense/e2e-model",
      small_model: "condense/e2e-model",
      permission: { bash: "allow", edit: "allow", read: "allow", external_directory: "allow" },
      provider: {
        condense: {
          npm: "@ai-sdk/openai-compatible",
          name: "Condense",
          options: {
            baseURL: options.baseUrl,
            apiKey: "{env:CONDENSE_API_KEY}",
            headers: options.headers,
          },
          models: {
            "e2e-model": {
              name: "E2E model",
              tool_call: true,
              // opencode compacts by itself near this limit; the gateway is the one to do it here.
              limit: { context: 400_000, output: 8192 },
            },
          },
        },
      },
    };
    const configPath = join(options.home, "opencode.json");
    writeFileSync(configPath, JSON.stringify(config, null, 2));
    return {
      command: agentBin("opencode"),
      args: ["run", "--pure", "--format", "json", options.prompt],
      env: {
        ...baseEnv(options.home),
        OPENCODE_CONFIG: configPath,
        CONDENSE_API_KEY: options.apiKey,
        OPENCODE_DISABLE_AUTOUPDATE: "1",
        OPENCODE_DISABLE_MODELS_FETCH: "1",
        OPENCODE_DISABLE_DEFAULT_PLUGINS: "1",
        OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
        OPENCODE_DISABLE_SHARE: "1",
      },
    };
  },
};

/** pi's API names for the three protocols (its models.json `api`). */
const PI_APIS: Record<ProtocolName, string> = {
  chat: "openai-completions",
  responses: "openai-responses",
  anthropic: "anthropic-messages",
};

/** pi on one protocol: a custom provider in its models.json, and its print mode. */
function piOn(name: string, protocol: ProtocolName, model: Record<string, unknown>): AgentSetup {
  return {
    name,
    dialect: "pi",
    packageName: "@mariozechner/pi-coding-agent",
    protocol,
    // pi's OpenAI APIs append /chat/completions or /responses; its Anthropic one, /v1/messages.
    baseUrl: (root) => (protocol === "anthropic" ? root : `${root}/v1`),
    launch(options) {
      prepareHome(options.home);
      const agentDir = join(options.home, ".pi", "agent");
      mkdirSync(agentDir, { recursive: true });
      const provider = {
        baseUrl: options.baseUrl,
        api: PI_APIS[protocol],
        apiKey: "CONDENSE_API_KEY",
        headers: options.headers,
        // pi compacts by itself near this window; the gateway is the one to do it here.
        models: [{ contextWindow: 400_000, maxTokens: 8192, ...model }],
      };
      writeFileSync(
        join(agentDir, "models.json"),
        JSON.stringify({ providers: { condense: provider } }, null, 2),
      );
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
          CONDENSE_API_KEY: options.apiKey,
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

export const AGENT_SETUPS: readonly AgentSetup[] = [
  claudeCode,
  claudeCodeOpus46,
  codex,
  opencode,
  pi,
  piAnthropic,
  piResponses,
];
