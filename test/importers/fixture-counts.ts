// The counts of the fixtures, beside the registry test's table of their formats (registry.test.ts).

/**
 * What importing a fixture (a file, a zip or a folder) gives: the conversations, their messages on
 * the branch last seen, and the memories, as a person would count them. The import of every format
 * through each face can take its expectations from here; registry.test.ts holds each to the importers.
 */
export const COUNTS: Record<string, { conversations: number; messages: number; memories: number }> = {
  "chatgpt-exporter/ChatGPT-Sourdough Starter Rescue.md": { conversations: 1, messages: 6, memories: 0 },
  "chatgpt-exporter/ChatGPT-Tram 28 in Lisbon.md": { conversations: 1, messages: 4, memories: 0 },
  "chatgpt-exporter/ChatGPT-Tram 28 in Lisbon.json": { conversations: 1, messages: 4, memories: 0 },
  "chatgpt-exporter-json.zip": { conversations: 2, messages: 6, memories: 0 },
  "chatgpt-exporter-markdown.zip": { conversations: 2, messages: 10, memories: 0 },
  "chatgpt-2026-library": { conversations: 3, messages: 8, memories: 0 }, // as chatgpt-2026-library-export.zip
  "markdown/user-assistant.md": { conversations: 1, messages: 5, memories: 0 },
  "markdown/claude-converted.md": { conversations: 1, messages: 4, memories: 0 },
  "markdown/prompt-response.md": { conversations: 1, messages: 4, memories: 0 },
  "markdown/pasted-bold.txt": { conversations: 1, messages: 4, memories: 0 },
  "markdown/copied-page.txt": { conversations: 1, messages: 4, memories: 0 },
  "claude-memories-export.zip": { conversations: 1, messages: 2, memories: 13 },
  "claude-memories-2026": { conversations: 0, messages: 0, memories: 7 },
  "claude-2026/memories.json": { conversations: 0, messages: 0, memories: 1 },
  "cherry-studio.202506030712.zip": { conversations: 3, messages: 11, memories: 0 }, // as cherry-studio/data.json
  "cherry-studio-direct.zip": { conversations: 4, messages: 13, memories: 0 }, // data.json's rows in Chromium's LevelDB folders, and a pasted log's
  "cherry-studio-2": { conversations: 2, messages: 10, memories: 0 }, // 2.x's data folder: its database's topics, the selected branch of each
  "lobehub-local-db.zip": { conversations: 4, messages: 16, memories: 0 }, // the data export's chats in the desktop app's PGlite database folder, an empty chat left out
  "chatbox-userdata.zip": { conversations: 3, messages: 8, memories: 0 }, // the data export's sessions in Chatbox's IndexedDB, as its data folder keeps them, and a pasted log's
  "page-assist-chrome-profile.zip": { conversations: 6, messages: 19, memories: 0 }, // the data export's chats in the extension's Dexie database (a profile's IndexedDB), and a pasted screenshot's
  "opencode-db/opencode.db": { conversations: 2, messages: 6, memories: 0 }, // as opencode-storage.zip
  "opencode-v2/opencode.db": { conversations: 3, messages: 11, memories: 0 }, // a subagent's session left out
  "opencode-v2/migrated/opencode.db": { conversations: 3, messages: 8, memories: 0 }, // a session deleted in 2.x left out
  "opencode-v2/migrating/opencode.db": { conversations: 2, messages: 6, memories: 0 }, // as opencode-db/opencode.db
  anythingllm: { conversations: 4, messages: 12, memories: 0 }, // the database, in the folder AnythingLLM keeps it in
  "anythingllm-export/anythingllm-chats-4_12_2026.json": { conversations: 3, messages: 15, memories: 0 }, // a conversation per workspace and user
  zed: { conversations: 5, messages: 16, memories: 0 }, // threads/threads.db and conversations/*.zed.json, as Zed keeps them side by side
  ollama: { conversations: 3, messages: 8, memories: 0 }, // today's db.sqlite and one of schema 2
  deepchat: { conversations: 5, messages: 17, memories: 0 }, // a data folder's agent.db and chat.db (each copied chat read once), and the first agent.db
  openhands: { conversations: 3, messages: 8, memories: 0 }, // as openhands.zip: the CLI's, V0's and the V1 GUI's layouts
  "text-generation-webui": { conversations: 4, messages: 15, memories: 0 }, // user_data/logs and the logs/ of older versions
  "amazon-q": { conversations: 5, messages: 16, memories: 0 }, // both databases and a saved chat, Amazon Q's chat in both read once
  "gpt4all/GPT4All": { conversations: 3, messages: 7, memories: 0 }, // its data folder: chats of format versions 12, 10 and 5
  goose: { conversations: 4, messages: 11, memories: 0 }, // its sessions folder: two session files and sessions.db
  "pi/sessions": { conversations: 3, messages: 16, memories: 0 }, // a session file of each version, in two projects' folders
  crush: { conversations: 2, messages: 9, memories: 0 }, // a project's data folder, its crush.db
  llm: { conversations: 5, messages: 17, memories: 0 }, // its logs.db, in a folder of its own as llm keeps it
  "kimi-cli": { conversations: 3, messages: 12, memories: 0 }, // its sessions folder: the wire of 1.49 and of 0.59, a context of before 0.59
  "kimi-code": { conversations: 2, messages: 9, memories: 0 }, // its sessions folder: a session of its own and one /upgrade copied from Kimi CLI
  "kiro-cli": { conversations: 3, messages: 14, memories: 0 }, // its sessions folder: sessions of 2.2 and 1.28, a classic chat copied in, an empty one
};
