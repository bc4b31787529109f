/**
 * What `pnpm start` gives the local gateway from its shell (`scripts/local-gateway-vars`), and the
 * recipes it prints (`scripts/agent-recipes`).
 */

import { describe, expect, it } from "vitest";
import { localRecipes, recipeLines } from "../../scripts/agent-recipes";
import { localGatewayVars } from "../../scripts/local-gateway-vars";

describe("localGatewayVars", () => {
  it("takes the shell's provider keys as the upstreams' keys, and names the local user", () => {
    const vars = localGatewayVars(
      { ANTHROPIC_API_KEY: "sk-ant-1", OPENAI_API_KEY: " ", GEMINI_API_KEY: "g-1", PATH: "/bin" },
      "dev",
    );
    expect(vars.keys).toEqual(["ANTHROPIC_API_KEY", "GEMINI_API_KEY"]);
    expect(vars.lines).toBe(
      'GATEWAY_LOCAL_USER="dev"\nGATEWAY_UPSTREAMS="gemini=https://generativelanguage.googleapis.com"\nANTHROPIC_API_KEY="sk-ant-1"\nGATEWAY_KEY_GEMINI="g-1"\n',
    );
  });

  it("adds Google's API as the `gemini` upstream Gemini CLI's recipe names, unless .dev.vars sets the upstreams", () => {
    const upstreams = 'GATEWAY_UPSTREAMS="gemini=https://generativelanguage.googleapis.com"';
    expect(localGatewayVars({}, "dev").lines.split("\n")).toContain(upstreams);
    const own = localGatewayVars({}, "dev", "API_KEYS=dev:k\nGATEWAY_UPSTREAMS=mine=http://x\n");
    expect(own.lines).not.toContain("GATEWAY_UPSTREAMS");
  });

  it("quotes a value so that a quote or newline cannot end its line", () => {
    const vars = localGatewayVars({ OPENAI_API_KEY: 'a"b\nC=1' }, "dev");
    expect(vars.lines.split("\n").filter((line) => line !== "")).toHaveLength(3);
  });
});

describe("localRecipes", () => {
  const recipes = localRecipes("http://localhost:8787");

  it("point every agent at the local gateway and keep its own key variable", () => {
    const claude = recipes.find((recipe) => recipe.agent === "claude-code");
    expect(claude?.env).toEqual({
      ANTHROPIC_BASE_URL: "http://localhost:8787/v1/gateway/anthropic",
    });
    expect(claude?.keyVariable).toBe("ANTHROPIC_API_KEY");
    const codex = recipes.find((recipe) => recipe.agent === "codex");
    expect(codex?.files[0]?.content).toContain(
      'base_url = "http://localhost:8787/v1/gateway/openai"',
    );
    expect(codex?.files[0]?.content).toContain('env_key = "OPENAI_API_KEY"');
  });

  it("set no X-Condense-Session for an agent that names its session", () => {
    const naming = recipes.filter((recipe) => recipe.identity !== "X-Condense-Session");
    expect(naming.map((recipe) => recipe.agent)).toEqual([
      "claude-code",
      "codex",
      "opencode",
      "pi",
      "qwen-code",
    ]);
    for (const recipe of naming) {
      expect(recipeLines(recipe).join("\n")).not.toContain("X-Condense-Session");
    }
  });

  it("has Qwen Code send its own session id, and names a session for Gemini CLI, which sends none", () => {
    const qwen = recipes.find((recipe) => recipe.agent === "qwen-code");
    const settings = JSON.parse(qwen?.files[0]?.content ?? "{}") as {
      model?: { generationConfig?: { customHeaders?: Record<string, string> } };
      outboundCorrelation?: { allowDynamicHeaderValues?: boolean };
    };
    expect(settings.model?.generationConfig?.customHeaders?.session_id).toBe(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: Qwen Code's placeholder.
      "${session_id}",
    );
    expect(settings.outboundCorrelation?.allowDynamicHeaderValues).toBe(true);
    const gemini = recipes.find((recipe) => recipe.agent === "gemini-cli");
    expect(gemini?.env).toMatchObject({
      GOOGLE_GEMINI_BASE_URL: "http://localhost:8787/v1/gateway/gemini",
      GEMINI_CLI_CUSTOM_HEADERS: "X-Condense-Session: gemini-cli-project",
    });
    expect(gemini?.keyVariable).toBe("GEMINI_API_KEY");
  });
});
