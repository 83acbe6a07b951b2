// A script entry for the bundler's test: TypeScript importing a CommonJS npm package (ws) that requires Node's own.
import { WebSocket } from "ws";

interface Ctx {
  count(name: string, n?: number): void;
}

export default async function client(ctx: Ctx): Promise<string> {
  ctx.count("loaded", 1);
  return typeof WebSocket;
}
