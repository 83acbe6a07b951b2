import { describe, expect, it } from "vitest";
import { installMethods, isLoopbackUrl, serverUrlOf, shellQuote } from "./install-commands";

const created = {
  token: "tok_abc123",
  expiresAt: "2026-01-01T01:00:00.000Z",
  commands: {
    node: "node agent/dist/throng-agent.mjs connect --server http://rig-api.example:4000 --token tok_abc123",
    npx: "npx throng-agent connect --server http://rig-api.example:4000 --token tok_abc123",
  },
};

describe("install methods", () => {
  it("reads the server address from the API's own command", () => {
    expect(serverUrlOf(created)).toBe("http://rig-api.example:4000");
    expect(serverUrlOf({ commands: { node: "node x.mjs", npx: "npx x" } })).toBeNull();
  });

  it("builds the script, container and Kubernetes variants from the token and that address", () => {
    const methods = installMethods(created)!;
    const byId = Object.fromEntries(methods.map((method) => [method.id, method.text]));
    expect(byId.script).toBe("curl -fsSL http://rig-api.example:4000/agent/install.sh | sh -s -- --token tok_abc123");
    expect(byId.npx).toBe(created.commands.npx);
    expect(byId.node).toBe(created.commands.node);
    expect(byId.container).toMatch(/^docker run .*--network host .* node:20 npx -y throng-agent connect --server http:\/\/rig-api\.example:4000 --token tok_abc123$/);
    expect(byId.kubernetes).toContain('token: "tok_abc123"');
    expect(byId.kubernetes).toContain('"--token", "$(THRONG_TOKEN)"');
    expect(byId.kubernetes).toContain("secretKeyRef: { name: throng-agent, key: token }");
  });

  it("has no variants when the address is unknown, rather than commands that cannot work", () => {
    expect(installMethods({ ...created, commands: { node: "node", npx: "npx" } })).toBeNull();
  });

  it("quotes words the shell would split or expand", () => {
    expect(shellQuote("abc-123_x")).toBe("abc-123_x");
    expect(shellQuote("a b$c")).toBe("'a b$c'");
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
  });

  it("flags loopback addresses a pod or bridged container cannot reach", () => {
    expect(isLoopbackUrl("http://localhost:4000")).toBe(true);
    expect(isLoopbackUrl("http://127.0.0.1:4000")).toBe(true);
    expect(isLoopbackUrl("https://throng.example.com")).toBe(false);
  });
});
