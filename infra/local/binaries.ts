import { accessSync, constants, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

/** The first executable `name` on PATH, then in `extraDirs` (in order); undefined when none. */
export function findBinary(name: string, extraDirs: string[] = []): string | undefined {
  const pathDirs = (process.env.PATH ?? "").split(path.delimiter).filter(Boolean);
  for (const dir of [...pathDirs, ...extraDirs]) {
    const candidate = path.join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

/** Debian keeps server binaries per major version (/usr/lib/postgresql/15/bin); newest first. */
export function postgresBinDirs(root = "/usr/lib/postgresql"): string[] {
  let versions: string[];
  try {
    versions = readdirSync(root);
  } catch {
    return [];
  }
  return versions
    .filter((v) => /^\d+$/.test(v))
    .sort((a, b) => Number(b) - Number(a))
    .map((v) => path.join(root, v, "bin"));
}

export function isRoot(): boolean {
  return process.getuid?.() === 0;
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The script behind an npm package's `bin` entry, resolved as `fromDir` would: run it with `node` directly. */
export function packageBin(fromDir: string, pkg: string, bin: string): string {
  const manifestPath = createRequire(path.join(fromDir, "package.json")).resolve(`${pkg}/package.json`);
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as { bin?: string | Record<string, string> };
  const relative = typeof manifest.bin === "string" ? manifest.bin : manifest.bin?.[bin];
  if (!relative) throw new Error(`${pkg} has no "${bin}" executable; run npm install.`);
  return path.join(path.dirname(manifestPath), relative);
}
