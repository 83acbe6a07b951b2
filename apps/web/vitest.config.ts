import { defineConfig } from "vitest/config";

// The web's pure helpers (lib/); the root config leaves apps/web out. Run: npm test -w @throng/web
export default defineConfig({
  test: { include: ["lib/**/*.test.ts"], environment: "node" },
});
