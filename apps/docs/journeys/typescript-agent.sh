# The TypeScript agent journey's install commands, run as written by scripts/journeys.test.ts: from
# the repository's root, then in a fresh project folder ($PROJECT) outside the workspace. The
# tutorial page shows them.
# #region snippet
pnpm --filter @condense/client build
pnpm --filter @condense/client pack --pack-destination /tmp
cd "$PROJECT"   # your project
npm install --offline --no-audit --no-fund /tmp/condense-client-0.1.0.tgz
# #endregion
