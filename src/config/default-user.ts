/** The user every store starts with, whom the CLI acts as unless told otherwise (kept light: `mnemo --help` loads it). */
export const DEFAULT_USER = "default";
