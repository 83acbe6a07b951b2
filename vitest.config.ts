import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["**/*.test.ts"],
    exclude: ["**/node_modules/**", "**/dist/**", "e2e/**", "apps/web/.next/**", ".data/**"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // PostgreSQL and Redis for *.int.test.ts: from npm test's env, or started here for a direct vitest run.
    globalSetup: ["infra/local/vitest-global-setup.ts"],
    setupFiles: ["infra/local/vitest-env.ts"],
  },
});
