# The deploy journey's build step, run as written by scripts/journeys.test.ts from the repository's
# root (with an --outdir of its own). The tutorial page shows it.
# #region snippet
pnpm --filter @condense/core build          # the engine's token data, which the Worker bundles
cd apps/worker
npx wrangler deploy --dry-run --outdir dist   # bundles the Worker without uploading it
# #endregion
