// The Condense docs site: Starlight on Astro, built offline to static HTML in dist/.
// Nothing is fetched at build or view time (no web fonts, no remote images), and a broken
// internal link fails the build (starlight-links-validator). The package scripts switch off
// Astro's telemetry, which would call out.
import starlight from "@astrojs/starlight";
import { defineConfig, passthroughImageService } from "astro/config";
import starlightLinksValidator from "starlight-links-validator";

export default defineConfig({
  // Images are served as they are: the sharp-based optimizer is not needed for two screenshots.
  image: { service: passthroughImageService() },
  integrations: [
    starlight({
      title: "Condense",
      description: "Context-window compaction for long-running LLM agents, served at the edge.",
      plugins: [starlightLinksValidator({ errorOnRelativeLinks: false })],
      sidebar: [
        { label: "Start", items: [{ autogenerate: { directory: "start" } }] },
        { label: "Tutorials", items: [{ autogenerate: { directory: "tutorials" } }] },
        { label: "Guides", items: [{ autogenerate: { directory: "guides" } }] },
        { label: "Agents", items: [{ autogenerate: { directory: "agents" } }] },
        { label: "Concepts", items: [{ autogenerate: { directory: "concepts" } }] },
        {
          label: "Reference",
          items: [
            "reference/configuration",
            "reference/error-codes",
            "reference/engine-options",
            "reference/client",
            {
              label: "HTTP API",
              collapsed: true,
              items: [{ autogenerate: { directory: "reference/http-api" } }],
            },
          ],
        },
        { label: "Operations", items: [{ autogenerate: { directory: "operations" } }] },
        { label: "Benchmarks", items: [{ autogenerate: { directory: "benchmarks" } }] },
        { label: "Project", items: [{ autogenerate: { directory: "project" } }] },
        {
          label: "Design notes",
          collapsed: true,
          items: [{ autogenerate: { directory: "notes" } }],
        },
      ],
    }),
  ],
});
