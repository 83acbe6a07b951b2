import { defineConfig, devices } from "@playwright/test";

// Run by `npm test` (infra/local/test.ts), which starts the stack and sets E2E_BASE_URL, E2E_API_URL,
// E2E_AGENT_BIN and CHROMIUM_PATH. Chromium is Debian's: Playwright's own browser downloads are not used.
export default defineConfig({
  testDir: ".",
  testMatch: "*.spec.ts",
  outputDir: "artifacts",
  workers: 1, // One stack, two cores: specs share it and run one at a time.
  retries: 0,
  globalTimeout: 30 * 60_000, // A hung spec must not eat the whole CI budget.
  fullyParallel: false,
  forbidOnly: Boolean(process.env.CI),
  reporter: [["list"], ["json", { outputFile: process.env.E2E_JSON_REPORT ?? "artifacts/results.json" }]],
  use: {
    ...devices["Desktop Chrome"],
    baseURL: process.env.E2E_BASE_URL,
    screenshot: "on",
    trace: "retain-on-failure",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    },
  },
  projects: [{ name: "chromium" }],
});
