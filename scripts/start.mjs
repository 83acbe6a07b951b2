#!/usr/bin/env node
// npm start: install dependencies if needed, then start PostgreSQL, Redis and the whole service.
import { runEntry } from "./bootstrap.mjs";

runEntry("infra/local/start.ts");
