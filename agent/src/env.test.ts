import { describe, expect, it } from "vitest";
import { readAgentEnv } from "./env";

describe("readAgentEnv", () => {
  it("takes THRONG_IO as auto, native or node, auto when unset or blank", () => {
    expect(readAgentEnv({}).io).toBe("auto");
    expect(readAgentEnv({ THRONG_IO: " " }).io).toBe("auto");
    expect(readAgentEnv({ THRONG_IO: "native" }).io).toBe("native");
    expect(readAgentEnv({ THRONG_IO: "node" }).io).toBe("node");
  });

  it("refuses any other THRONG_IO, naming the variable and its choices", () => {
    expect(() => readAgentEnv({ THRONG_IO: "uring" })).toThrow(
      /THRONG_IO must be one of auto, native, node, not "uring"/,
    );
  });
});
