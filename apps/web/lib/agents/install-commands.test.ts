import { describe, expect, it } from "vitest";
import { installMethods, parseAllowTargets, serverUrlOf, shellQuote } from "./install-commands";

const created = {
  token: "tok_abc123",
  expiresAt: "2026-01-01T01:00:00.000Z",
  commands: {
    node: "node agent/dist/throng-agent.mjs connect --server http://rig-api.example:4000 --token tok_abc123",
    npx: "npx --yes http://rig-api.example:4000/agent/throng-agent.tgz connect --server http://rig-api.example:4000 --token tok_abc123",
  },
};

describe("install methods", () => {
  it("reads the server address from the API's own command", () => {
    expect(serverUrlOf(created)).toBe("http://rig-api.example:4000");
    expect(serverUrlOf({ commands: { node: "node x.mjs", npx: "npx x" } })).toBeNull();
  });

  it("offers the script, npx from this server, a checkout, the agent image and an agents-only Helm release", () => {
    const methods = installMethods(created)!;
    const byId = Object.fromEntries(methods.map((method) => [method.id, method.text]));
    expect(Object.keys(byId)).toEqual(["script", "npx", "node", "container", "kubernetes"]);
    expect(byId.script).toBe("curl -fsSL http://rig-api.example:4000/agent/install.sh | sh -s -- --token tok_abc123");
    expect(byId.npx).toBe(created.commands.npx);
    expect(byId.node).toBe(created.commands.node);
    expect(byId.container).toBe(
      "docker run -d --name throng-agent --restart unless-stopped --network host throng-agent connect --server http://rig-api.example:4000 --token tok_abc123",
    );
    expect(byId.kubernetes).toContain(
      "--set agents.server=http://rig-api.example:4000 --set agents.enrolment.token=tok_abc123",
    );
  });

  it("adds the permissions the user asked for to every variant: --allow-scripts and --allow-target, or the chart's values", () => {
    const permissions = { allowScripts: true, allowTargets: parseAllowTargets("127.0.0.1:7070, *.game.example") };
    expect(permissions.allowTargets).toEqual(["127.0.0.1:7070", "*.game.example"]);
    const byId = Object.fromEntries(installMethods(created, permissions)!.map((method) => [method.id, method.text]));
    const flags = " --allow-scripts --allow-target '127.0.0.1:7070,*.game.example'";
    expect(byId.script).toBe(
      `curl -fsSL http://rig-api.example:4000/agent/install.sh | sh -s -- --token tok_abc123${flags}`,
    );
    expect(byId.npx).toBe(created.commands.npx + flags);
    expect(byId.node).toBe(created.commands.node + flags);
    expect(byId.container!.endsWith(`--token tok_abc123${flags}`)).toBe(true);
    expect(
      byId.kubernetes!.endsWith(
        "--set agents.allowScripts=true --set 'agents.allowTargets={127.0.0.1:7070,*.game.example}'",
      ),
    ).toBe(true);
  });

  it("has no variants when the address is unknown, rather than commands that cannot work", () => {
    expect(installMethods({ ...created, commands: { node: "node", npx: "npx" } })).toBeNull();
  });

  it("quotes words the shell would split or expand", () => {
    expect(shellQuote("abc-123_x")).toBe("abc-123_x");
    expect(shellQuote("a b$c")).toBe("'a b$c'");
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
  });
});
