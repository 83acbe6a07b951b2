#!/usr/bin/env node
// npm test: install dependencies if needed, then unit + integration tests (vitest) and e2e (Playwright).
import { runEntry } from "./bootstrap.mjs";

runEntry("infra/local/test.ts");
