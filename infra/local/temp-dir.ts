import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";

/** A fresh directory the `postgres` user can traverse too (mkdtemp alone makes it 0700, owned by us). */
export async function makeTempDir(prefix: string, parent = os.tmpdir()): Promise<string> {
  await fs.mkdir(parent, { recursive: true });
  const dir = await fs.mkdtemp(path.join(parent, prefix));
  await fs.chmod(dir, 0o755);
  return dir;
}
