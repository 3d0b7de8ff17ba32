// Coding assistants' sessions on disk (Gemini CLI's ~/.gemini/tmp, VS Code's chatSessions, Continue's
// ~/.continue/sessions, Aider's .aider.chat.history.md in each repository) through the
// CLI's own program: each folder imports a conversation per session, and importing it again, as a
// user does now and then to keep up with the assistant, adds nothing: the ids are the sessions' own.
// Each command opens the store and embeds with the bundled model: seconds each on a loaded machine.
import path from "node:path";
import { describe, expect, it } from "vitest";
import { isolatedEnv, ROOT, runCli, tempDir } from "../../helpers.js";

const EXPORTS = path.join(ROOT, "fixtures", "exports");
const FOLDERS = [path.join(EXPORTS, "gemini-cli", "tmp"), path.join(EXPORTS, "vscode-chat", "User", "workspaceStorage")];

describe("mnemo import of Gemini CLI's and VS Code's session folders", () => {
  it("imports a conversation per session under each tool's platform, and again adds nothing", async () => {
    const env = isolatedEnv({ MNEMO_STORE: path.join(tempDir(), "store"), MNEMO_EMBEDDER: "bundled" });
    const mnemo = (args: string[]) => runCli(args, { env });
    const first = await mnemo(["--json", "import", ...FOLDERS]);
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ new: 4, failed: 0 });
    for (const platform of ["gemini-cli", "vscode-chat"]) {
      const list = JSON.parse((await mnemo(["--json", "chats", "list", "--provider", platform])).stdout) as { total: number };
      expect(list.total).toBe(2);
    }
    const again = JSON.parse((await mnemo(["--json", "import", ...FOLDERS])).stdout);
    expect(again).toMatchObject({ new: 0, unchanged: 4, failed: 0 });
  });

  it("Continue's sessions folder and a folder of repositories with Aider's hidden histories, likewise", async () => {
    const env = isolatedEnv({ MNEMO_STORE: path.join(tempDir(), "store"), MNEMO_EMBEDDER: "bundled" });
    const mnemo = (args: string[]) => runCli(args, { env });
    const folders = [path.join(EXPORTS, "continue", "sessions"), path.join(EXPORTS, "aider")];
    const first = await mnemo(["--json", "import", ...folders]);
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ new: 7, failed: 0 });
    for (const [platform, total] of [
      ["continue", 4],
      ["aider", 3],
    ] as const) {
      const list = JSON.parse((await mnemo(["--json", "chats", "list", "--provider", platform])).stdout) as { total: number };
      expect(list.total).toBe(total);
    }
    const again = JSON.parse((await mnemo(["--json", "import", ...folders])).stdout);
    expect(again).toMatchObject({ new: 0, unchanged: 7, failed: 0 });
  });
});
