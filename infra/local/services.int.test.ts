import { promises as fs } from "node:fs";
import net from "node:net";
import path from "node:path";
import pg from "pg";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { assertPortFree, freePort } from "./ports";
import { ensurePostgres } from "./postgres";
import { ensureRedis } from "./redis";
import { redisCommand } from "./redis-command";
import { makeTempDir } from "./temp-dir";

const log = () => undefined;
const dir = await makeTempDir("throng-services-");
const saved = { DATABASE_URL: process.env.DATABASE_URL, REDIS_URL: process.env.REDIS_URL };

// These tests start their own servers, so a developer's DATABASE_URL/REDIS_URL must not divert them.
beforeEach(() => {
  delete process.env.DATABASE_URL;
  delete process.env.REDIS_URL;
});
afterEach(() => {
  // Assigning undefined to process.env would store the string "undefined".
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});
afterAll(() => fs.rm(dir, { recursive: true, force: true }));

async function query(url: string, text: string): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows;
  } finally {
    await client.end();
  }
}

describe("ensurePostgres", () => {
  it("starts a server with a throng database and keeps its rows across a restart on the same data dir", async () => {
    const dataDir = path.join(dir, "postgres");
    const first = await ensurePostgres({ dataDir, port: await freePort(), log });
    try {
      expect(first.url).toMatch(/\/throng$/);
      await query(first.url, "create table kept (note text); insert into kept values ('survives')");
    } finally {
      await first.stop();
    }
    const second = await ensurePostgres({ dataDir, port: await freePort(), log });
    try {
      expect(await query(second.url, "select note from kept")).toEqual([{ note: "survives" }]);
    } finally {
      await second.stop();
    }
  });

  it("names DATABASE_URL when the server it points at does not answer", async () => {
    process.env.DATABASE_URL = `postgres://nobody@127.0.0.1:${await freePort()}/nothing`;
    await expect(ensurePostgres({ dataDir: path.join(dir, "unused"), port: 1, log })).rejects.toThrow(/DATABASE_URL/);
  });
});

describe("ensureRedis", () => {
  it("keeps keys across a restart on the same data dir (append-only file)", async () => {
    const dataDir = path.join(dir, "redis");
    const first = await ensureRedis({ dataDir, port: await freePort(), log });
    try {
      expect(await redisCommand(first.url, ["SET", "kept", "survives"])).toBe("OK");
    } finally {
      await first.stop();
    }
    const second = await ensureRedis({ dataDir, port: await freePort(), log });
    try {
      expect(await redisCommand(second.url, ["GET", "kept"])).toBe("survives");
    } finally {
      await second.stop();
    }
  });

  it("names REDIS_URL when the server it points at does not answer", async () => {
    process.env.REDIS_URL = `redis://127.0.0.1:${await freePort()}`;
    await expect(ensureRedis({ dataDir: path.join(dir, "unused"), port: 1, log })).rejects.toThrow(/REDIS_URL/);
  });
});

describe("assertPortFree", () => {
  it("names the service and the variable that moves it when the port is taken", async () => {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as net.AddressInfo).port;
    try {
      await expect(assertPortFree(port, "Redis", "REDIS_PORT")).rejects.toThrow(
        `Port ${port} for Redis is already in use. Stop whatever listens there or set REDIS_PORT=`,
      );
    } finally {
      server.close();
    }
  });
});
