// A platform id, on its own without the schema library: `mnemo import --platform` is checked by
// what `--help` loads (core/index.ts), which zod would slow.

export const PLATFORM_PATTERN = /^[a-zA-Z0-9\-_.]{1,100}$/;
export const PLATFORM_RULE = "must be 1 to 100 letters, digits, hyphens, underscores or dots";
