import { spawn } from "node:child_process";

/**
 * Opens `url` in the user's browser: $BROWSER when set, else the system's opener. Resolves false
 * when none could be started (a server without a desktop): the caller prints the link instead.
 */
export function openBrowser(url: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  if (!hasDesktop(env)) return Promise.resolve(false);
  const [command, args] = opener(url, env);
  return new Promise((resolve) => {
    try {
      const child = spawn(command, args, { env, detached: true, stdio: "ignore", windowsHide: true });
      child.once("error", () => resolve(false));
      child.once("spawn", () => {
        child.unref();
        resolve(true);
      });
    } catch {
      resolve(false);
    }
  });
}

/**
 * Whether a browser can be shown: on Linux and the BSDs, only with a display (or $BROWSER, which may
 * be a text browser). Without one (ssh, a container) xdg-open starts, fails, and the one-time
 * sign-in link, said to be opened, was never shown.
 */
function hasDesktop(env: NodeJS.ProcessEnv): boolean {
  if (env["BROWSER"]?.trim() || process.platform === "darwin" || process.platform === "win32") return true;
  return Boolean(env["DISPLAY"] || env["WAYLAND_DISPLAY"]);
}

function opener(url: string, env: NodeJS.ProcessEnv): [string, string[]] {
  const browser = env["BROWSER"]?.trim();
  if (browser) return [browser, [url]];
  if (process.platform === "darwin") return ["open", [url]];
  // `start`'s first quoted argument is a window title; an empty one keeps the URL from being taken for it.
  if (process.platform === "win32") return ["cmd", ["/c", "start", '""', url.replaceAll("&", "^&")]];
  return ["xdg-open", [url]];
}
