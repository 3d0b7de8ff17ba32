import os from "node:os";

/**
 * DNS-rebinding protection: a page on evil.example that resolves its name to 127.0.0.1 still
 * sends `Host: evil.example`, so only the names the server is meant to be reached by pass.
 */
export type HostCheck = { ok: true } | { ok: false; reason: string };

const LOOPBACK = ["localhost", "127.0.0.1", "::1"];

/**
 * Loopback, the configured names, and the address the server listens on; listening on every
 * interface, each of this machine's addresses. An address typed as an IP is safe to answer: a
 * rebinding page sends its own domain name, never the IP it resolved to.
 */
export function allowedHostnames(bindHost: string, configured: string[]): Set<string> {
  const names = new Set([...LOOPBACK, ...configured.map((h) => h.toLowerCase())]);
  if (bindHost !== "0.0.0.0" && bindHost !== "::") names.add(bindHost.toLowerCase());
  else for (const address of interfaceAddresses()) names.add(address);
  return names;
}

function interfaceAddresses(): string[] {
  return Object.values(os.networkInterfaces())
    .flatMap((list) => list ?? [])
    .map((info) => info.address.toLowerCase().replace(/%.*$/, ""));
}

export function checkHost(hostHeader: string | undefined, allowed: Set<string>): HostCheck {
  if (!hostHeader) return { ok: false, reason: "missing Host header" };
  let hostname: string;
  try {
    hostname = new URL(`http://${hostHeader}`).hostname.toLowerCase().replace(/^\[|\]$/g, "");
  } catch {
    return { ok: false, reason: "malformed Host header" };
  }
  return allowed.has(hostname) ? { ok: true } : { ok: false, reason: `host ${hostname} is not allowed` };
}

export function isLoopback(host: string): boolean {
  return LOOPBACK.includes(host) || host.startsWith("127.");
}
