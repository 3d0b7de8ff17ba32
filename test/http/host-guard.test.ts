import os from "node:os";
import { describe, expect, it } from "vitest";
import { allowedHostnames, checkHost } from "../../src/http/host-guard.js";

const ownAddresses = Object.values(os.networkInterfaces())
  .flatMap((list) => list ?? [])
  .filter((info) => !info.internal)
  .map((info) => info.address.replace(/%.*$/, ""));

describe("the Host guard", () => {
  it("answers loopback names and configured ones, never a foreign name", () => {
    const allowed = allowedHostnames("127.0.0.1", ["notes.lan"]);
    for (const host of ["localhost:7411", "127.0.0.1:7411", "[::1]:7411", "NOTES.lan"])
      expect(checkHost(host, allowed), host).toEqual({ ok: true });
    expect(checkHost("evil.example:7411", allowed)).toEqual({ ok: false, reason: "host evil.example is not allowed" });
    expect(checkHost(undefined, allowed)).toMatchObject({ ok: false });
  });

  it("listening on every interface, answers this machine's own addresses (but not while on loopback only)", () => {
    const everywhere = allowedHostnames("0.0.0.0", []);
    const loopbackOnly = allowedHostnames("127.0.0.1", []);
    for (const address of ownAddresses) {
      const host = address.includes(":") ? `[${address}]:7411` : `${address}:7411`;
      expect(checkHost(host, everywhere), host).toEqual({ ok: true });
      expect(checkHost(host, loopbackOnly).ok, host).toBe(false);
    }
    expect(checkHost("evil.example", everywhere).ok).toBe(false);
  });
});
