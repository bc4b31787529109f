/**
 * @module scripts/agent-recipes
 * How each agent runs through the gateway: the variables to export and the
 * config files to write, for a gateway origin and upstream. `pnpm start`
 * prints them (`scripts/dev`), the agents suite runs them (`tests/agents`,
 * which adds only its test settings: telemetry off, the task's model), and the
 * docs' agent pages are generated from them, so the recipe a user reads is
 * the one that is tested.
 *
 * Every recipe keeps the agent's own provider key variable: a local deployment
 * (`GATEWAY_LOCAL_USER`) does not read it as a Condense key. No recipe sets
 * `X-Condense-Session` for an agent that names its session itself
 * (`gateway/agent-identity`); pi on Chat Completions and Anthropic Messages
 * and Gemini CLI name none, so their recipes send the header.
 */

export type RecipeAgent = "claude-code" | "codex" | "opencode" | "pi" | "gemini-cli" | "qwen-code";

/** What a recipe is made for. */
export interface RecipeTarget {
  /** The gateway's route for an upstream, e.g. `http://localhost:8787/v1/gateway/anthropic` (`gatewayBase`). */
  baseUrl: string;
  /** The model the agent asks for. */
  model: string;
  /** Request headers the agent adds (e.g. `X-Condense-Context-Window`). */
  headers?: Record<string, string>;
}

export interface RecipeFile {
  /** Relative to HOME. */
  path: string;
  content: string;
}

export interface AgentRecipe {
  agent: RecipeAgent;
  title: string;
  /** The variables to export (the provider key variable is named, not set: it is the user's). */
  env: Record<string, string>;
  /** The provider key variable the agent reads, left as the user has it. */
  keyVariable: string;
  files: RecipeFile[];
  /** The field the gateway names the session by (`X-Condense-Session-Source`). */
  identity: string;
  /** The session the recipe names in `X-Condense-Session`, for an agent that names none. */
  namedSession?: string;
}

/** The gateway route an SDK appends its path to (`/v1/messages`, `/responses`, …). */
export function gatewayBase(origin: string, upstream: string): string {
  return `${origin}/v1/gateway/${upstream}`;
}

const toml = (value: string): string => JSON.stringify(value);

export function claudeCodeRecipe(target: RecipeTarget): AgentRecipe {
  const env: Record<string, string> = { ANTHROPIC_BASE_URL: target.baseUrl };
  const headers = Object.entries(target.headers ?? {});
  if (headers.length > 0) {
    env.ANTHROPIC_CUSTOM_HEADERS = headers.map(([name, value]) => `${name}: ${value}`).join("\n");
  }
  return {
    agent: "claude-code",
    title: "Claude Code",
    env,
    keyVariable: "ANTHROPIC_API_KEY",
    files: [],
    identity: "x-claude-code-session-id",
  };
}

/** Codex: a model provider in `~/.codex/config.toml` (`extraToml`: more top-level settings). */
export function codexRecipe(target: RecipeTarget, extraToml: string[] = []): AgentRecipe {
  const headers = Object.entries(target.headers ?? {})
    .map(([name, value]) => `${toml(name)} = ${toml(value)}`)
    .join(", ");
  return {
    agent: "codex",
    title: "Codex",
    env: {},
    keyVariable: "OPENAI_API_KEY",
    files: [
      {
        path: ".codex/config.toml",
        content: [
          `model = ${toml(target.model)}`,
          'model_provider = "condense"',
          ...extraToml,
          "",
          "[model_providers.condense]",
          'name = "Condense"',
          `base_url = ${toml(target.baseUrl)}`,
          'env_key = "OPENAI_API_KEY"',
          'wire_api = "responses"',
          ...(headers === "" ? [] : [`http_headers = { ${headers} }`]),
          "",
        ].join("\n"),
      },
    ],
    identity: "session-id",
  };
}

/** opencode: a provider in its config (`extra`: more top-level settings, `limit`: the model's). */
export function opencodeRecipe(
  target: RecipeTarget,
  extra: Record<string, unknown> = {},
  limit?: { context: number; output: number },
): AgentRecipe {
  const config = {
    $schema: "https://opencode.ai/config.json",
    ...extra,
    model: `condense/${target.model}`,
    small_model: `condense/${target.model}`,
    provider: {
      condense: {
        npm: "@ai-sdk/openai-compatible",
        name: "Condense",
        options: {
          baseURL: target.baseUrl,
          apiKey: "{env:OPENAI_API_KEY}",
          ...(target.headers === undefined ? {} : { headers: target.headers }),
        },
        models: {
          [target.model]: {
            name: target.model,
            tool_call: true,
            ...(limit === undefined ? {} : { limit }),
          },
        },
      },
    },
  };
  return {
    agent: "opencode",
    title: "opencode",
    env: {},
    keyVariable: "OPENAI_API_KEY",
    files: [{ path: ".config/opencode/opencode.json", content: JSON.stringify(config, null, 2) }],
    identity: "x-session-id",
  };
}

/** pi's API names for the three protocols (its models.json `api`). */
export const PI_APIS = {
  chat: "openai-completions",
  responses: "openai-responses",
  anthropic: "anthropic-messages",
} as const;

/** pi: a provider in `~/.pi/agent/models.json` (`model`: more fields of its model entry). */
export function piRecipe(
  target: RecipeTarget,
  protocol: keyof typeof PI_APIS,
  model: Record<string, unknown> = {},
): AgentRecipe {
  // pi names its session only on Responses (`session_id`); elsewhere the recipe names one.
  const headers =
    protocol === "responses"
      ? { ...target.headers }
      : { "X-Condense-Session": "pi-project", ...target.headers };
  const keyVariable = protocol === "anthropic" ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY";
  const provider = {
    baseUrl: target.baseUrl,
    api: PI_APIS[protocol],
    apiKey: keyVariable,
    headers,
    models: [{ id: target.model, ...model }],
  };
  return {
    agent: "pi",
    title: "pi",
    env: {},
    keyVariable,
    files: [
      {
        path: ".pi/agent/models.json",
        content: JSON.stringify({ providers: { condense: provider } }, null, 2),
      },
    ],
    identity: protocol === "responses" ? "session_id" : "X-Condense-Session",
    ...(protocol === "responses" ? {} : { namedSession: "pi-project" }),
  };
}

/** Gemini CLI: its base URL and headers from the environment (it sends no session id of its own). */
export function geminiCliRecipe(target: RecipeTarget): AgentRecipe {
  const namedSession = "gemini-cli-project";
  const headers = { "X-Condense-Session": namedSession, ...target.headers };
  return {
    agent: "gemini-cli",
    title: "Gemini CLI",
    env: {
      GOOGLE_GEMINI_BASE_URL: target.baseUrl,
      GEMINI_CLI_CUSTOM_HEADERS: Object.entries(headers)
        .map(([name, value]) => `${name}: ${value}`)
        .join(", "),
      GEMINI_MODEL: target.model,
    },
    keyVariable: "GEMINI_API_KEY",
    files: [],
    identity: "X-Condense-Session",
    namedSession,
  };
}

/**
 * Qwen Code: an OpenAI-compatible provider in `~/.qwen/settings.json` (`extra`: more top-level
 * settings). It sends its own session id only to Alibaba's hosts; a custom header with its
 * `${session_id}` placeholder (allowed by `outboundCorrelation.allowDynamicHeaderValues`) sends
 * it to the gateway in `session_id`, the header it uses there.
 */
export function qwenCodeRecipe(
  target: RecipeTarget,
  extra: Record<string, unknown> = {},
): AgentRecipe {
  const settings = {
    ...extra,
    security: { auth: { selectedType: "openai", baseUrl: target.baseUrl } },
    model: {
      name: target.model,
      generationConfig: {
        // biome-ignore lint/suspicious/noTemplateCurlyInString: Qwen Code's placeholder, which it expands.
        customHeaders: { session_id: "${session_id}", ...target.headers },
      },
    },
    outboundCorrelation: { allowDynamicHeaderValues: true },
  };
  return {
    agent: "qwen-code",
    title: "Qwen Code",
    env: {},
    keyVariable: "OPENAI_API_KEY",
    files: [{ path: ".qwen/settings.json", content: JSON.stringify(settings, null, 2) }],
    identity: "session_id",
  };
}

/** The recipes `pnpm start` prints, for a local gateway at `origin`. */
export function localRecipes(origin: string): AgentRecipe[] {
  return [
    claudeCodeRecipe({ baseUrl: gatewayBase(origin, "anthropic"), model: "claude-sonnet-4-6" }),
    codexRecipe({ baseUrl: gatewayBase(origin, "openai"), model: "gpt-5.5-codex" }),
    opencodeRecipe({ baseUrl: gatewayBase(origin, "openai"), model: "gpt-5.5" }),
    piRecipe({ baseUrl: gatewayBase(origin, "openai"), model: "gpt-5.5" }, "responses"),
    geminiCliRecipe({ baseUrl: gatewayBase(origin, "gemini"), model: "gemini-2.5-pro" }),
    qwenCodeRecipe({ baseUrl: gatewayBase(origin, "openai"), model: "gpt-5.5" }),
  ];
}

/** A recipe as shell lines a user pastes. */
export function recipeLines(recipe: AgentRecipe): string[] {
  const lines = [`# ${recipe.title} (keeps your ${recipe.keyVariable})`];
  for (const [name, value] of Object.entries(recipe.env)) {
    lines.push(`export ${name}=${JSON.stringify(value)}`);
  }
  for (const file of recipe.files) {
    lines.push(`mkdir -p ~/${file.path.replace(/\/[^/]+$/, "")} && cat > ~/${file.path} <<'EOF'`);
    lines.push(file.content.trimEnd(), "EOF");
  }
  return lines;
}
