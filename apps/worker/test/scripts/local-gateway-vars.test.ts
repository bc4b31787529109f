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
      'GATEWAY_LOCAL_USER="dev"\nANTHROPIC_API_KEY="sk-ant-1"\nGATEWAY_KEY_GEMINI="g-1"\n',
    );
  });

  it("quotes a value so that a quote or newline cannot end its line", () => {
    const vars = localGatewayVars({ OPENAI_API_KEY: 'a"b\nC=1' }, "dev");
    expect(vars.lines.split("\n").filter((line) => line !== "")).toHaveLength(2);
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
    for (const recipe of recipes) {
      expect(recipeLines(recipe).join("\n")).not.toContain("X-Condense-Session");
    }
  });
});
