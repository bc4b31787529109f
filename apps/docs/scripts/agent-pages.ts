/**
 * @module scripts/agent-pages
 * One page per agent: how it runs through the gateway, from the recipe `pnpm start` prints and the
 * agents suite runs (`apps/worker/scripts/agent-recipes`), and how to see that it worked.
 */

import { frontMatter, generatedBanner } from "./markdown.ts";
import type { AgentRecipe } from "./worker-source.ts";

export const AGENTS_DIR = "src/content/docs/agents";

function page(recipe: AgentRecipe, lines: string[], order: number): string {
  const named =
    recipe.identity === "X-Condense-Session"
      ? `It names no session of its own here, so the recipe sends \`X-Condense-Session\` (change \`${recipe.namedSession ?? "my-project"}\` per project).`
      : `It names its session itself: the gateway keeps it under \`${recipe.identity}\`, per user, with no header to configure.`;
  return `${frontMatter({ title: recipe.title, order })}${generatedBanner("apps/worker/scripts/agent-recipes.ts")}Run ${recipe.title} through a local gateway (\`pnpm start\`, which prints these lines too).
Keep your own \`${recipe.keyVariable}\`: the local gateway does not read it as a Condense key, and
sends upstream the key \`pnpm start\` took from its shell (else yours). ${named}

\`\`\`sh
${lines.join("\n")}
\`\`\`

The agents suite (\`tests/agents\`, [how it runs](/notes/agents/)) runs this recipe
(with its test settings added: telemetry off, the task's model) through the gateway on every change.
On a deployed Worker the agent also needs a Condense key: [on a deployed Worker](/guides/gateway/#on-a-deployed-worker).

## How to see it worked

- Each response carries \`X-Condense-Session\` (the session's id, e.g. \`${recipe.identity === "X-Condense-Session" ? (recipe.namedSession ?? "my-project") : `${recipe.agent === "claude-code" ? "claude-code" : recipe.agent === "codex" ? "codex" : "session"}:<id>`}\`),
  \`X-Condense-Session-Source: ${recipe.identity}\`, \`X-Condense-Generation\`, and
  \`X-Condense-Tokens\` (the context sent upstream). A debugging proxy or the agent's verbose log
  shows them.
- Open \`http://localhost:8787/inspect\`, sign in with the key \`pnpm start\` printed: the session is
  listed under that id, with its transcript, its context and each compaction.
- \`curl -s http://localhost:8787/v1/sessions -H "Authorization: Bearer <key>"\` lists it too.
`;
}

export function agentPages(
  recipes: { recipe: AgentRecipe; lines: string[] }[],
): Map<string, string> {
  return new Map(
    recipes.map(({ recipe, lines }, index) => [
      `${AGENTS_DIR}/${recipe.agent}.md`,
      page(recipe, lines, index + 1),
    ]),
  );
}

/** A written page's quoted recipe: `<!-- recipe:<agent> -->`, its lines, `<!-- /recipe -->`. */
const RECIPE_MARKER = /<!-- recipe:([\w-]+) -->[\s\S]*?<!-- \/recipe -->/g;

/**
 * A page with every quoted recipe holding the lines `pnpm start` prints for that agent, so a guide
 * that shows one agent's setup shows the tested one (`--check` fails on a stale copy).
 */
export function withRecipes(
  page: string,
  recipes: { recipe: AgentRecipe; lines: string[] }[],
  where: string,
): string {
  return page.replace(RECIPE_MARKER, (_marker, agent: string) => {
    const found = recipes.find(({ recipe }) => recipe.agent === agent);
    if (found === undefined) {
      throw new Error(
        `${where}: no recipe "${agent}" (recipes: ${recipes.map(({ recipe }) => recipe.agent).join(", ")})`,
      );
    }
    return `<!-- recipe:${agent} -->\n\`\`\`sh\n${found.lines.join("\n")}\n\`\`\`\n<!-- /recipe -->`;
  });
}
