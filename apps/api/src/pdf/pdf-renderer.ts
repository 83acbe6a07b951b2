import { accessSync, constants } from "node:fs";
import path from "node:path";
import { chromium, type Browser } from "playwright-core";
import { ThrongError } from "@throng/protocol/errors";
import type { Log } from "@throng/core/ports";
import { createTurns } from "./turns";

export interface PdfRendererConfig {
  /** A path, or a name looked up on PATH (`chromium`). */
  chromiumPath: string;
  /** Renders at once; more wait their turn (each page holds tens of MB in Chromium). */
  concurrency: number;
  /** One render, waiting for a turn included; past it the caller gets 504. */
  timeoutMs: number;
}

// The flags e2e/playwright.config.ts launches with: no sandbox (root in containers), and nothing phoning home.
const LAUNCH_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** The executable a name means: itself when it holds a slash, else the first match on PATH; null when none runs. */
export function resolveExecutable(name: string, searchPath = process.env.PATH ?? ""): string | null {
  const candidates = name.includes("/")
    ? [name]
    : searchPath
        .split(path.delimiter)
        .filter(Boolean)
        .map((dir) => path.join(dir, name));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here (or not executable): try the next
    }
  }
  return null;
}

const missing = (chromiumPath: string) =>
  new ThrongError(
    "unavailable",
    `PDF export needs Chromium on the API's machine and "${chromiumPath}" was not found: install it (apt-get install chromium fonts-liberation) or set CHROMIUM_PATH to its path`,
  );

/**
 * Prints HTML to PDF in headless Chromium. One browser, launched on the first render and reused (a fresh one
 * after a crash); a page per render, at most `concurrency` at once; `close()` on shutdown.
 */
export function createPdfRenderer(config: PdfRendererConfig, log: Log) {
  let browser: Promise<Browser> | null = null;
  const turns = createTurns(config.concurrency);

  function launch(): Promise<Browser> {
    const executablePath = resolveExecutable(config.chromiumPath);
    if (!executablePath) return Promise.reject(missing(config.chromiumPath));
    const launched = chromium.launch({ executablePath, args: LAUNCH_ARGS, timeout: config.timeoutMs }).then(
      (b) => {
        b.on("disconnected", () => {
          if (browser === launched) browser = null;
        });
        return b;
      },
      (error: unknown) => {
        // A binary that exists but cannot start (missing libraries, not Chromium) is as unavailable as none.
        const why = (error instanceof Error ? error.message : String(error)).split("\n")[0];
        throw new ThrongError(
          "unavailable",
          `PDF export needs Chromium and ${executablePath} did not start (${why}): install Debian's chromium package or set CHROMIUM_PATH to a working Chromium`,
        );
      },
    );
    launched.catch((error: unknown) => {
      if (browser === launched) browser = null; // the next render tries again
      log.error({ err: error, executablePath }, "chromium did not start");
    });
    return launched;
  }

  async function render(html: string): Promise<Buffer> {
    const release = await turns.take();
    try {
      browser ??= launch();
      const context = await (await browser).newContext({ javaScriptEnabled: false, offline: true });
      try {
        const page = await context.newPage();
        page.setDefaultTimeout(config.timeoutMs);
        await page.setContent(html, { waitUntil: "load" });
        return await page.pdf({
          format: "A4",
          printBackground: true,
          margin: { top: "14mm", bottom: "14mm", left: "12mm", right: "12mm" },
        });
      } finally {
        await context.close().catch(() => undefined);
      }
    } finally {
      release();
    }
  }

  return {
    /** The document as PDF bytes; `unavailable` (503) without Chromium, `timeout` (504) past the time-out. */
    async pdf(html: string): Promise<Buffer> {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_resolve, reject) => {
        timer = setTimeout(
          () =>
            reject(new ThrongError("timeout", `The PDF took longer than ${config.timeoutMs} ms to render; try again`)),
          config.timeoutMs,
        );
      });
      try {
        return await Promise.race([render(html), late]);
      } finally {
        clearTimeout(timer);
      }
    },
    async close(): Promise<void> {
      const current = browser;
      browser = null;
      await current?.then((b) => b.close()).catch(() => undefined);
    },
  };
}
export type PdfRenderer = ReturnType<typeof createPdfRenderer>;
