import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { aptInstall } from "../../../../infra/local/apt";
import { findBinary } from "../../../../infra/local/binaries";

/** poppler's pdftotext, installed when missing (as npm test does): call before reading PDFs. */
export async function ensurePdfText(): Promise<void> {
  if (!findBinary("pdftotext", ["/usr/bin"])) await aptInstall(["poppler-utils"], () => undefined);
}

/** The text of a PDF, as poppler's pdftotext reads it. */
export async function pdfText(bytes: Uint8Array): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "throng-pdf-"));
  try {
    await writeFile(path.join(dir, "report.pdf"), bytes);
    return (await promisify(execFile)("pdftotext", [path.join(dir, "report.pdf"), "-"])).stdout;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
