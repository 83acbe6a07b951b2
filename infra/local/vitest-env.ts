import { inject } from "vitest";

// Runs before every test file: the URLs of the servers vitest-global-setup.ts started, if it started any.
for (const [name, value] of Object.entries(inject("throngTestEnv"))) {
  process.env[name] ??= value;
}
