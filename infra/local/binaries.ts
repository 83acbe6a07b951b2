import { accessSync, constants, readdirSync } from "node:fs";
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
