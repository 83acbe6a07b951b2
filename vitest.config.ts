import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["**/*.test.ts"],
    exclude: ["**/node_modules/**", "**/dist/**", "e2e/**", "apps/web/**", ".data/**"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
