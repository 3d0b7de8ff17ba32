/** The folders VS Code and the editors built on it keep their user data in, under the apps' settings folder (AppFolder's appData). */
export const VS_CODE = ["Code", "Code - Insiders"] as const;
/** The same with VS Code's forks, where extensions such as Cline run as well. */
export const VS_CODE_AND_FORKS = [...VS_CODE, "Cursor", "Windsurf", "VSCodium"] as const;
