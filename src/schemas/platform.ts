// A platform id, on its own without the schema library: `mnemo import --platform` is checked by
// what `--help` loads (core/index.ts), which zod would slow.

export const PLATFORM_PATTERN = /^[a-zA-Z0-9\-_.]{1,100}$/;
export const PLATFORM_RULE = "must be 1 to 100 letters, digits, hyphens, underscores or dots";

/**
 * Platforms whose conversations an earlier mnemo stored under another id (newer id → former id): Roo
 * Code's and Kilo Code's tasks were Cline's until the extension's folder told them apart, Qwen Code's
 * sessions of 2025 Gemini CLI's until their folder (~/.qwen) or answers told them apart. A conversation
 * is one whichever of the two it is uploaded under: stored under the former, it moves to the newer.
 */
export const FORMER_PLATFORMS: Readonly<Record<string, string>> = {
  "roo-code": "cline",
  "kilo-code": "cline",
  "qwen-code": "gemini-cli",
};
