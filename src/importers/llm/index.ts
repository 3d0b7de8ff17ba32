// Simon Willison's LLM (simonw/llm), the `llm` command: every prompt and response it logs is a row of
// logs.db (`llm logs path`), in the folder click.get_app_dir("io.datasette.llm") names (~/.config on
// Linux, honouring $XDG_CONFIG_HOME; ~/Library/Application Support on macOS; %APPDATA% on Windows), or
// in $LLM_USER_PATH when set (llm/__init__.py user_dir). database.ts reads its rows, conversation.ts
// what they say; tables.ts names the tables of each version.
import { groupedPerFile, hasTables, loaded, type Importer, type Sample } from "../importer.js";
import { FIRST_COLUMNS, KEPT_COLUMNS, LEGACY_COLUMNS, MIGRATIONS_TABLE, STORE_COLUMNS } from "./tables.js";

export const llm: Importer = {
  id: "llm",
  name: "LLM CLI",
  chatApp: true,
  accepts: "its logs.db database, or the folder holding it",
  howToGet:
    "Simon Willison's llm command logs every prompt and response in logs.db (`llm logs path` prints where): pass it, from ~/.config/io.datasette.llm on Linux, ~/Library/Application Support/io.datasette.llm on macOS, %APPDATA%\\io.datasette.llm on Windows, or the folder $LLM_USER_PATH names when set.",
  watchedDatabase: true,
  extensions: ["logs.db"],
  appFolders: [{ appData: "io.datasette.llm/logs.db", file: true, moved: { env: "LLM_USER_PATH", path: "logs.db" } }],
  detect: (sample) => (isDatabase(sample) ? {} : undefined),
  // Every table mnemo reads, without what it does not: the attachments' bytes, the fragments' text
  // (whole files), the providers' raw JSON.
  smallerDatabase:
    `sqlite3 logs.db "VACUUM INTO 'llm-chats.db'" && sqlite3 llm-chats.db "UPDATE attachments SET content = NULL; ` +
    `UPDATE fragments SET content = ''; UPDATE responses SET prompt_json = NULL, response_json = NULL; VACUUM"`,
  database: async function* (db) {
    yield* (await import("./database.js")).llmExchanges(db);
  },
  convert: loaded(async () => {
    const { llmItem, llmConversations } = await import("./conversation.js");
    return groupedPerFile(llmItem, llmConversations);
  }),
};

/** logs.db: llm's migrations table, and the tables of one of its versions. */
function isDatabase(sample: Sample): boolean {
  return (
    hasTables(sample, MIGRATIONS_TABLE) &&
    [LEGACY_COLUMNS, STORE_COLUMNS, KEPT_COLUMNS, FIRST_COLUMNS].some((columns) => hasTables(sample, columns))
  );
}
