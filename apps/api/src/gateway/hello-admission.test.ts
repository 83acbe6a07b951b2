import { describe, expect, it } from "vitest";
import { admissionAddress, createHelloAdmission, type HelloLimits } from "./hello-admission";

const limits: HelloLimits = {
  maxPending: 4,
  maxPendingPerAddress: 3,
  softPending: 2,
  helloTimeoutMs: 10_000,
  busyHelloTimeoutMs: 2_000,
  reservedForCredentials: 1,
};

function admitted(result: ReturnType<ReturnType<typeof createHelloAdmission>["admit"]>) {
  if (!result.admitted) throw new Error(`refused: ${result.reason}`);
  return result;
}

describe("connections waiting for hello", () => {
  it("refuse a source address past its cap with 429, and other addresses still get in", () => {
    const admission = createHelloAdmission(limits);
    for (let i = 0; i < 3; i++) admitted(admission.admit("10.0.0.1"));
    const refused = admission.admit("10.0.0.1");
    expect(refused).toMatchObject({ admitted: false, status: 429 });
    expect(refused.admitted || refused.retryAfterSec).toBeGreaterThan(0);
    admitted(admission.admit("10.0.0.2"));
  });

  it("refuse every address past the overall cap with 503, and a released slot lets the next one in", () => {
    const admission = createHelloAdmission(limits);
    const slots = ["a", "b", "c", "d"].map((address) => admitted(admission.admit(address)));
    expect(admission.admit("e")).toMatchObject({ admitted: false, status: 503 });
    slots[0]!.release();
    slots[0]!.release(); // a hello accepted and then the close: one slot, released once
    admitted(admission.admit("e"));
    expect(admission.pending()).toBe(4);
  });

  it("give connections beyond the soft threshold the short hello time-out", () => {
    const admission = createHelloAdmission(limits);
    expect([1, 2, 3].map((i) => admitted(admission.admit(`a${i}`)).helloTimeoutMs)).toEqual([10_000, 10_000, 2_000]);
  });

  it("keep reserved slots for upgrades that proved a credential, past both caps", () => {
    const admission = createHelloAdmission(limits);
    for (let i = 0; i < 3; i++) admitted(admission.admit("flood"));
    admitted(admission.admit("other"));
    expect(admission.admit("rig")).toMatchObject({ admitted: false, status: 503 });
    const proven = admitted(admission.admit("flood", true));
    expect(admission.admit("rig", true)).toMatchObject({ admitted: false, status: 503 }); // the reserve is used up
    proven.release();
    admitted(admission.admit("rig", true));
  });
});

describe("the address a connection counts against", () => {
  it("is the forwarded client behind a private-network proxy, and the peer itself otherwise (a forged header buys nothing)", () => {
    expect(admissionAddress("10.0.0.5", "203.0.113.7, 10.0.0.5")).toBe("203.0.113.7");
    expect(admissionAddress("::ffff:127.0.0.1", "203.0.113.7")).toBe("203.0.113.7");
    expect(admissionAddress("198.51.100.9", "203.0.113.7")).toBe("198.51.100.9");
    expect(admissionAddress("172.32.0.1", "203.0.113.7")).toBe("172.32.0.1");
    expect(admissionAddress("127.0.0.2", undefined)).toBe("127.0.0.2");
  });
});
