import { describe, expect, it } from "vitest";
import { openBrowser } from "../../src/cli/open-browser.js";

describe.runIf(process.platform === "linux")("opening the web app in a browser on Linux", () => {
  it("does not claim to have opened it without a display (ssh, a container): the caller prints the link", async () => {
    expect(await openBrowser("http://127.0.0.1:1/auth?code=x", { PATH: process.env["PATH"] })).toBe(false);
  });

  it("starts $BROWSER, or the opener when there is a display", async () => {
    expect(await openBrowser("http://127.0.0.1:1/", { PATH: process.env["PATH"], BROWSER: "true" })).toBe(true);
    expect(await openBrowser("http://127.0.0.1:1/", { PATH: "/nonexistent", DISPLAY: ":0" })).toBe(false); // no xdg-open on PATH
  });
});
