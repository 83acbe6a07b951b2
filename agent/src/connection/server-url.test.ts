import { describe, expect, it } from "vitest";
import { gatewayUrl, normaliseServer } from "./server-url";

describe("gateway address (PROTOCOL.md §1)", () => {
  it.each([
    ["http://localhost:4000", "ws://localhost:4000/agent/v1/connect"],
    ["https://throng.example.com/", "wss://throng.example.com/agent/v1/connect"],
    ["https://example.com/throng/", "wss://example.com/throng/agent/v1/connect"],
    ["ws://127.0.0.1:4000", "ws://127.0.0.1:4000/agent/v1/connect"],
  ])("%s dials %s", (server, expected) => {
    expect(gatewayUrl(server)).toBe(expected);
  });

  it("keys credentials by one spelling of the API address", () => {
    expect(normaliseServer("ws://localhost:4000/")).toBe("http://localhost:4000");
    expect(normaliseServer("https://example.com")).toBe("https://example.com");
  });

  it("rejects an address that is not http(s) with an error that says what to pass", () => {
    expect(() => gatewayUrl("localhost:4000")).toThrow(/http\(s\) URL/);
    expect(() => gatewayUrl("not a url")).toThrow(/not a URL/);
  });
});
