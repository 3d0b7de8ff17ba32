// LobeChat's (lobehub/lobe-chat, now lobehub/lobehub) data export, in either of its two shapes:
// - Settings → Data → Export all data (2025 on, its database): `<date>_LobeChat-data.json` (LobeHub-data
//   later), `{ data: { messages, topics, threads, sessions, agents, agentsToSessions, … }, mode:
//   "pglite" | "postgres", schemaHash }` (src/services/config.ts `exportAll`, the tables
//   packages/database/src/repositories/dataExporter `DATA_EXPORT_CONFIG`);
// - the earlier browser app's config file (Export sessions, Export all): `{ exportType: "sessions" |
//   "all" | "agents" | "settings", state: { sessions, topics, messages, … }, version }`
//   (src/services/export/_deprecated.ts `createConfigFile`, src/types/exportConfig.ts).
// The desktop app's own PGlite database folder (its earlier versions') is read into the first shape (desktop.ts).
import { loaded, type Importer, type Sample } from "../importer.js";
import { POSTGRES_DATA_FILE } from "./desktop-layout.js";

export const lobeChat: Importer = {
  id: "lobechat",
  name: "LobeChat",
  chatApp: true,
  accepts:
    "the file its Export saves (…_LobeChat-data.json or …_LobeHub-data.json, or an older version's config file), or the desktop app's database folder (…/lobehub-storage/lobehub-local-db)",
  howToGet:
    "The menu under your avatar → Export (or Settings → Storage → Export) saves <date>_LobeChat-data.json; pass it as it is. An older version's Export → All or Sessions file works too. The desktop app's earlier versions kept the chats in a database folder, read as it is, also after an update left it behind (--apps finds it: ~/.config/LobeHub/lobehub-storage/lobehub-local-db, ~/Library/Application Support/LobeHub/…, %APPDATA%\\LobeHub\\…; LobeHub Beta or LobeHub Nightly for those builds).",
  extensions: [".json"],
  // The desktop app's database folder (Postgres's files) is read into the export's shape, from a copy.
  foreignLayout: {
    marks: POSTGRES_DATA_FILE,
    read: async (sources) => (await import("./desktop.js")).withLobeHubDatabase(sources),
  },
  // Electron's userData is named for the build's productName (scripts/electronWorkflow/setDesktopVersion.ts).
  appFolders: [
    { appData: "LobeHub/lobehub-storage/lobehub-local-db" },
    { appData: "LobeHub Beta/lobehub-storage/lobehub-local-db" },
    { appData: "LobeHub Nightly/lobehub-storage/lobehub-local-db" },
  ],
  notWatched: "the database folder of the desktop app's earlier versions, no longer written",
  // The database export opens with `data`, whose tables can outrun the sample before `schemaHash` shows:
  // its agents table (every export has the inbox agent, and it comes early) tells it too.
  wrappers: [["data", "agents"]],
  detect: (sample) => {
    if (isAgentRow(sample)) return { whole: true };
    if (!isExport(sample)) return undefined;
    const chatless = sample.strings("exportType").some((type) => type === "agents" || type === "settings");
    return chatless ? { aside: "LobeChat's export of its agents or settings alone, without chats" } : {};
  },
  convert: loaded(async () => (await import("./export.js")).lobeChatExport),
};

/** A row of the agents table (packages/database/src/schemas/agent.ts): its prompt, opening questions, few-shot examples. */
function isAgentRow(sample: Sample): boolean {
  const { keys } = sample;
  return keys.has("systemRole") && keys.has("openingQuestions") && keys.has("fewShots");
}

/** The database export's `data` beside its `schemaHash`, or the config file's `exportType` beside its `state`. */
function isExport(sample: Sample): boolean {
  const { keys } = sample;
  return (keys.has("data") && keys.has("schemaHash")) || (keys.has("exportType") && keys.has("state"));
}
