import { aptInstall } from "./apt";
import { findBinary } from "./binaries";
import type { Log } from "./log";

const names = ["chromium", "chromium-browser"];
const missingMessage =
  "Chromium was not found. Install it (apt-get install chromium) or set CHROMIUM_PATH=/path/to/chromium";

/** The Chromium that Playwright drives: CHROMIUM_PATH, one on PATH, or Debian's package installed on demand. */
export async function ensureChromium(log: Log = () => undefined): Promise<string> {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  const found = find();
  if (found) return found;
  log("chromium is not installed; installing it with apt-get");
  // Fonts: without any, pages (and their screenshots) render text as empty boxes.
  if (!(await aptInstall(["chromium", "fonts-liberation"], log))) throw new Error(missingMessage);
  const installed = find();
  if (!installed) throw new Error(missingMessage);
  return installed;
}

function find(): string | undefined {
  for (const name of names) {
    const found = findBinary(name, ["/usr/bin"]);
    if (found) return found;
  }
  return undefined;
}
