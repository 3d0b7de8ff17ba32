// The fixtures of fixtures/exports/ and what each is: every JSON file is shown to every detector
// (test/importers/registry.test.ts), and the rows that say what a person expects of an import are
// imported through every face (test/importers/every-format.int.test.ts).

/** A fixture imported through the CLI, the REST upload and the web import page, and what that gives. */
export interface Imported {
  format: string;
  /** The conversations it holds that have any text (what the import summary counts). */
  conversations: number;
  /** Their messages on the branches the user last saw, in all. */
  messages: number;
  /** Words of one of its messages: search finds them there, and recall cites it. */
  finds: string;
}

/**
 * Every JSON file of the fixtures and the format it is: a format's id, "aside" (its shape without its
 * data), none (an export's other file, or no export) or "unreadable" (detection refuses it); or, for
 * at least one file of each format, what importing it gives. A new fixture must be added here, so
 * that every detector is shown it; a new format needs a row with its counts.
 */
export const FIXTURES: Record<string, string | null | Imported> = {
  "chatgpt-exporter-all/ChatGPT-Cacilhas ferry.json": "chatgpt", // Export All → JSON: the API's conversation
  "chatgpt-exporter-all/ChatGPT-Tram 28 in Lisbon.json": "chatgpt",
  "chatgpt-exporter/ChatGPT-Sourdough Starter Rescue.md": "chatgpt-exporter",
  "chatgpt-exporter/ChatGPT-Tram 28 in Lisbon.json": "chatgpt",
  "chatgpt-exporter/ChatGPT-Tram 28 in Lisbon.md": {
    format: "chatgpt-exporter",
    conversations: 1,
    messages: 4,
    finds: "Is it covered by the Viva Viagem card",
  },
  "claude-code/projects/-home-ana-bread/9c3e7b21-44d0-4f5e-8b6a-7d1e2f3a4b5c.jsonl": "claude-code", // a summary first (CLI 1.0)
  "claude-code/projects/-home-ana-bread/e2d4f6a8-1b3c-4d5e-8f70-9a1b2c3d4e5f.jsonl": "claude-code", // summaries alone
  "claude-code/projects/-home-ana-src-tideapp/5f0c2a1e-8d3b-4c6a-9e71-2b4d6f8a0c13.jsonl": {
    format: "claude-code",
    conversations: 1,
    messages: 5,
    finds: "The file is semicolon-separated (a French locale)",
  },
  "claude-code/projects/-home-ana-src-tideapp/5f0c2a1e-8d3b-4c6a-9e71-2b4d6f8a0c13/subagents/agent-a1b2c3.jsonl": "claude-code",
  "cline/kilocode.kilo-code/tasks/0b9e8d7c-6f5a-4b3c-9d2e-1f0a9b8c7d6e/api_conversation_history.json": "aside", // its ui_messages.json missing
  "cline/kilocode.kilo-code/tasks/6c1d7e2f-0a9b-4c8d-8e7f-5a4b3c2d1e0f/ui_messages.json": "cline", // Kilo Code: the task as a "text"
  "cline/rooveterinaryinc.roo-cline/tasks/3f2b8c1e-6a4d-4e9b-9c7a-1d2e3f4a5b6c/api_conversation_history.json": "aside", // what the model was sent, with ts
  "cline/rooveterinaryinc.roo-cline/tasks/3f2b8c1e-6a4d-4e9b-9c7a-1d2e3f4a5b6c/ui_messages.json": "cline", // Roo Code 3.x
  "cline/saoudrizwan.claude-dev/tasks/1736942400000/api_conversation_history.json": "aside", // tool calls as XML in the text
  "cline/saoudrizwan.claude-dev/tasks/1736942400000/ui_messages.json": "cline", // Cline 2.x: a bare follow-up, the result in the ask
  "cline/saoudrizwan.claude-dev/tasks/1748001234567/api_conversation_history.json": "aside",
  "cline/saoudrizwan.claude-dev/tasks/1748001234567/task_metadata.json": null, // the files and models the task used
  "cline/sessions/1784094124598_rruoq/1784094124598_rruoq.json": null, // the SDK's session manifest: model, folder, status
  "cline/sessions/1784094124598_rruoq/1784094124598_rruoq.messages.json": "cline", // the SDK's session (cline/cline's own fixture, cut)
  "cline/sessions/1784200000000_k3xq9/1784200000000_k3xq9.messages.json": "cline", // the SDK's session in VS Code: mode wrappers
  "cline/sessions/1784200000000_k3xq9/explorer.messages.json": "cline", // a subagent's session, counted as left out
  "cline/saoudrizwan.claude-dev/tasks/1748001234567/ui_messages.json": {
    format: "cline",
    conversations: 1,
    messages: 6,
    finds: "The parser now reads 24:10 as 00:10 on the next day",
  },
  "opencode-2025/storage/session/info/ses_7e0a4b8d1ffeQa2WsX3eDc4R.json": "opencode",
  "opencode-2025/storage/session/info/ses_7f1e9d2c3ffeLp0OkIj9UhYg.json": "opencode",
  "opencode-2025/storage/session/message/ses_7e0a4b8d1ffeQa2WsX3eDc4R/msg_8b6e5f4a3001Uv4Wx6Yz8Ab0Cd.json": "opencode",
  "opencode-2025/storage/session/message/ses_7e0a4b8d1ffeQa2WsX3eDc4R/msg_8b6e5f4b0002Ef2Gh4Ij6Kl8Mn.json": "opencode",
  "opencode-2025/storage/session/message/ses_7f1e9d2c3ffeLp0OkIj9UhYg/msg_8a7b3c1d2001Ab3Cd5Ef7Gh9Ij.json": "opencode", // the first messages: their parts inside
  "opencode-2025/storage/session/message/ses_7f1e9d2c3ffeLp0OkIj9UhYg/msg_8a7b3c1e5002Kl1Mn3Op5Qr7St.json": "opencode", // the first messages: their parts inside
  "opencode-2025/storage/session/part/ses_7e0a4b8d1ffeQa2WsX3eDc4R/msg_8b6e5f4a3001Uv4Wx6Yz8Ab0Cd/prt_8b6e5f4a3101Oo5Pp6Qq7Rr8.json":
    "opencode",
  "opencode-2025/storage/session/part/ses_7e0a4b8d1ffeQa2WsX3eDc4R/msg_8b6e5f4b0002Ef2Gh4Ij6Kl8Mn/prt_8b6e5f4b0101Ss9Tt0Uu1Vv2.json":
    "opencode",
  "opencode-2025/storage/session/part/ses_7e0a4b8d1ffeQa2WsX3eDc4R/msg_8b6e5f4b0002Ef2Gh4Ij6Kl8Mn/prt_8b6e5f4b0202Ww3Xx4Yy5Zz6.json":
    "opencode",
  "opencode/storage/message/ses_45b2f0c19ffeH7dJs4ZnYc8UoE/msg_ba5c20f3c001Vb6NmQ2wEr5TyU.json": "opencode",
  "opencode/storage/message/ses_45b2f0c19ffeH7dJs4ZnYc8UoE/msg_ba5c20f45002Io8PaS1dFg4HjK.json": "opencode",
  "opencode/storage/message/ses_45c1a5f7effe2TbWq6MhLr0XvA/msg_ba3e5806a001Tq4WeR7yUi0OpA.json": "opencode",
  "opencode/storage/message/ses_45c1a5f7effe2TbWq6MhLr0XvA/msg_ba3e5806b002Ys2DfG5hJk8LzX.json": "opencode",
  "opencode/storage/message/ses_45c1a8e02ffeQm3VtK9pLx2RwN/msg_ba3e57fe1001Xw2QpL7cTz9KjR.json": "opencode",
  "opencode/storage/message/ses_45c1a8e02ffeQm3VtK9pLx2RwN/msg_ba3e58023002Nf8YhB3dVs6MqP.json": "opencode",
  "opencode/storage/message/ses_45c1a8e02ffeQm3VtK9pLx2RwN/msg_ba3e5b7c9003Rk4GtW1xZa5LcH.json": "opencode",
  "opencode/storage/message/ses_45c1a8e02ffeQm3VtK9pLx2RwN/msg_ba3e5b84e004Jm7SuD2pFq8NvB.json": "opencode",
  "opencode/storage/part/msg_ba3e57fe1001Xw2QpL7cTz9KjR/prt_ba3e57fe2001aT5kLm9QwE3rYu.json": "opencode",
  "opencode/storage/part/msg_ba3e57fe1001Xw2QpL7cTz9KjR/prt_ba3e57fe3002bV7nRp2SxG4tZi.json": "opencode",
  "opencode/storage/part/msg_ba3e57fe1001Xw2QpL7cTz9KjR/prt_ba3e57fe4003cX9qTs4UzJ6vAo.json": "opencode",
  "opencode/storage/part/msg_ba3e58023002Nf8YhB3dVs6MqP/prt_ba3e58049001dZ1sVu6WbL8xCq.json": "opencode",
  "opencode/storage/part/msg_ba3e58023002Nf8YhB3dVs6MqP/prt_ba3e5804a002eB3uXw8YdN0zEs.json": "opencode",
  "opencode/storage/part/msg_ba3e58023002Nf8YhB3dVs6MqP/prt_ba3e5804b003fD5wZy0AfP2bGu.json": "opencode",
  "opencode/storage/part/msg_ba3e58023002Nf8YhB3dVs6MqP/prt_ba3e5804c004gF7yBa2ChR4dIw.json": "opencode",
  "opencode/storage/part/msg_ba3e58023002Nf8YhB3dVs6MqP/prt_ba3e5804d005hH9aDc4EjT6fKy.json": "opencode",
  "opencode/storage/part/msg_ba3e58023002Nf8YhB3dVs6MqP/prt_ba3e5804e006iJ1cFe6GlV8hMa.json": "opencode",
  "opencode/storage/part/msg_ba3e58023002Nf8YhB3dVs6MqP/prt_ba3e5804f007kL3eHg8InX0jOc.json": "opencode",
  "opencode/storage/part/msg_ba3e58023002Nf8YhB3dVs6MqP/prt_ba3e5804f108mN5gJi0KpZ2lQe.json": "opencode",
  "opencode/storage/part/msg_ba3e5806a001Tq4WeR7yUi0OpA/prt_ba3e5806a101Aa1Bb2Cc3Dd4Ee.json": "opencode",
  "opencode/storage/part/msg_ba3e5806b002Ys2DfG5hJk8LzX/prt_ba3e5806b101Ff5Gg6Hh7Ii8Jj.json": "opencode",
  "opencode/storage/part/msg_ba3e5b7c9003Rk4GtW1xZa5LcH/prt_ba3e5b7ca001oP7iLk2MrB4nSg.json": "opencode",
  "opencode/storage/part/msg_ba3e5b84e004Jm7SuD2pFq8NvB/prt_ba3e5b86f001qR9kNm4OtD6pUi.json": "opencode",
  "opencode/storage/part/msg_ba3e5b84e004Jm7SuD2pFq8NvB/prt_ba3e5b870002sT1mPo6QvF8rWk.json": "opencode",
  "opencode/storage/part/msg_ba3e5b84e004Jm7SuD2pFq8NvB/prt_ba3e5b871003uV3oRq8SxH0tYm.json": "opencode",
  "opencode/storage/part/msg_ba3e5b84e004Jm7SuD2pFq8NvB/prt_ba3e5b872004wX5qTs0UzJ2vAo.json": "opencode",
  "opencode/storage/part/msg_ba3e5b84e004Jm7SuD2pFq8NvB/prt_ba3e5b873005yZ7sVu2WbL4xCq.json": "opencode",
  "opencode/storage/part/msg_ba5c20f3c001Vb6NmQ2wEr5TyU/prt_ba5c20f3c101Kk9Ll0Mm1Nn2Oo.json": "opencode",
  "opencode/storage/part/msg_ba5c20f45002Io8PaS1dFg4HjK/prt_ba5c20f45101Pp3Qq4Rr5Ss6Tt.json": "opencode",
  "opencode/storage/part/msg_ba5c20f45002Io8PaS1dFg4HjK/prt_ba5c20f45202Uu7Vv8Ww9Xx0Yy.json": "opencode",
  "opencode/storage/part/msg_ba5c20f45002Io8PaS1dFg4HjK/prt_ba5c20f45303Zz1Aa2Bb3Cc4Dd.json": "opencode",
  "opencode/storage/project/8d2f6c0a4e9b1357acef02468bdf13579ace0246.json": null, // the project: its folder and VCS
  "opencode/storage/project/global.json": null, // the project: its folder and VCS
  "opencode/storage/session/8d2f6c0a4e9b1357acef02468bdf13579ace0246/ses_45c1a5f7effe2TbWq6MhLr0XvA.json": "opencode", // a subagent's session (parentID): left out
  "opencode/storage/session/8d2f6c0a4e9b1357acef02468bdf13579ace0246/ses_45c1a8e02ffeQm3VtK9pLx2RwN.json": "opencode",
  "opencode/storage/session/global/ses_45b2f0c19ffeH7dJs4ZnYc8UoE.json": "opencode",
  "opencode/storage/session_diff/ses_45c1a8e02ffeQm3VtK9pLx2RwN.json": null, // the files a session changed
  "opencode/storage/todo/ses_45c1a8e02ffeQm3VtK9pLx2RwN.json": null, // the agent's to-do list
  "opencode-storage.zip": {
    format: "opencode",
    conversations: 2, // a subagent's session left out
    messages: 6,
    finds: "parse_amount now reads (12.50) as -12.50",
  },
  "opencode-db/opencode.db": "opencode", // 1.2's database: the storage fixture's sessions, copied in as OpenCode copies them
  "opencode-db/wal/opencode.db": "opencode", // its latest changes in the WAL beside it
  "opencode-db/wal/opencode.db-wal": null, // the WAL, read with the database
  "opencode-v2/opencode.db": "opencode", // 2.x's tables alone
  "opencode-v2/migrated/opencode.db": "opencode", // 1.2's database with its sessions copied into 2.x's tables
  "opencode-v2/migrating/opencode.db": "opencode", // the same, the copy under way
  "anythingllm/anythingllm.db": {
    format: "anythingllm",
    conversations: 4, // a workspace's default chat, two threads, a developer API session; two chats the app no longer shows left out
    messages: 12,
    finds: "early blight (Alternaria)",
  },
  "anythingllm-export/anythingllm-chats-4_12_2026.json": "anythingllm", // the same chats exported as JSON: no threads, every row
  "zed/threads/threads.db": {
    format: "zed",
    conversations: 3, // today's agent (zstd), the agent before it, the oldest; a thread never written in left out
    messages: 10,
    finds: "abort it in the same cleanup",
  },
  "zed/conversations/CSV fields with quoted commas - 1.zed.json": "zed", // a text thread of the assistant before the agent panel (0.4.0)
  "zed/conversations/git rebase onto - 1.zed.json": "zed", // one of its first version (0.1.0)
  "goose/sessions/sessions.db": {
    format: "goose",
    conversations: 2, // 1.10's database: two sessions, a subagent's left out
    messages: 6,
    finds: "sniffs the delimiter, so semicolon files",
  },
  "crush/crush.db": {
    format: "crush",
    conversations: 2, // a project's database: two sessions Crush lists; two sub-agents' and an empty one left out
    messages: 9,
    finds: "every time after midnight lands on the next day",
  },
  "ollama/db.sqlite": {
    format: "ollama",
    conversations: 2, // schema 18: two chats; an empty one and a deleted chat's messages left out
    messages: 6,
    finds: "keeps the 23:40 Sunday crossing",
  },
  "ollama/schema-2/db.sqlite": "ollama", // the first schema released, before attachments
  "deepchat/DeepChat/app_db/agent.db": {
    format: "deepchat",
    conversations: 4, // 1.1's: two sessions of its own, two copied from chat.db; a sub-agent's, an empty one and a deleted one's messages left out
    messages: 15,
    finds: "the first 28 leaves Martim Moniz at 06:00",
  },
  "deepchat/DeepChat/app_db/chat.db": "deepchat", // 0.5.8's, left beside agent.db by 1.0's import
  "deepchat/DeepChat/database-security.json": null, // whether agent.db is encrypted (here: not)
  "deepchat/agent-1.0-beta/agent.db": "deepchat", // the first agent.db: no structured tables
  "openhands.zip": {
    format: "openhands",
    conversations: 3, // the CLI's conversation, V0's and the V1 GUI's; one opened and left (its system prompt alone) and a sub-agent's said, not imported
    messages: 8,
    finds: "rolls them over to the next day once",
  },
  "openhands/conversations/0d9e8f7a6b5c4d3e9f2a1b0c9d8e7f6a/base_state.json": null, // the SDK's conversation state: read for its id only when the path does not give it
  "openhands/conversations/0d9e8f7a6b5c4d3e9f2a1b0c9d8e7f6a/events/event-00000-6d14c5d6-e7f8-4091-a2b3-c4d5e6f70819.json": "openhands",
  "openhands/conversations/7c1e2f3a4b5d4c6e8f90a1b2c3d4e5f6/base_state.json": null, // the SDK's conversation state: read for its id only when the path does not give it
  "openhands/conversations/7c1e2f3a4b5d4c6e8f90a1b2c3d4e5f6/events/event-00000-4f1a0b2c-3d4e-4f50-8a1b-2c3d4e5f6a70.json": "openhands",
  "openhands/conversations/7c1e2f3a4b5d4c6e8f90a1b2c3d4e5f6/events/event-00001-a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d.json": "openhands",
  "openhands/conversations/7c1e2f3a4b5d4c6e8f90a1b2c3d4e5f6/events/event-00002-b2c3d4e5-f6a7-4b8c-9d0e-1f2a3b4c5d6e.json": "openhands",
  "openhands/conversations/7c1e2f3a4b5d4c6e8f90a1b2c3d4e5f6/events/event-00003-c3d4e5f6-a7b8-4c9d-8e1f-2a3b4c5d6e7f.json": "openhands",
  "openhands/conversations/7c1e2f3a4b5d4c6e8f90a1b2c3d4e5f6/events/event-00004-d4e5f6a7-b8c9-4d0e-9f2a-3b4c5d6e7f80.json": "openhands",
  "openhands/conversations/7c1e2f3a4b5d4c6e8f90a1b2c3d4e5f6/events/event-00005-e5f6a7b8-c9d0-4e1f-8a3b-4c5d6e7f8091.json": "openhands",
  "openhands/conversations/7c1e2f3a4b5d4c6e8f90a1b2c3d4e5f6/events/event-00006-f6a7b8c9-d0e1-4f2a-9b4c-5d6e7f8091a2.json": "openhands",
  "openhands/conversations/7c1e2f3a4b5d4c6e8f90a1b2c3d4e5f6/events/event-00007-07b8c9d0-e1f2-4a3b-8c5d-6e7f8091a2b3.json": "openhands",
  "openhands/conversations/7c1e2f3a4b5d4c6e8f90a1b2c3d4e5f6/events/event-00008-18c9d0e1-f2a3-4b4c-9d6e-7f8091a2b3c4.json": "openhands",
  "openhands/conversations/7c1e2f3a4b5d4c6e8f90a1b2c3d4e5f6/events/event-00009-29d0e1f2-a3b4-4c5d-8e7f-8091a2b3c4d5.json": "openhands",
  "openhands/conversations/7c1e2f3a4b5d4c6e8f90a1b2c3d4e5f6/events/event-00010-4bf2a3b4-c5d6-4e7f-8091-a2b3c4d5e6f7.json": "openhands",
  "openhands/conversations/7c1e2f3a4b5d4c6e8f90a1b2c3d4e5f6/events/event-00011-3ae1f2a3-b4c5-4d6e-9f80-91a2b3c4d5e6.json": "openhands",
  "openhands/conversations/7c1e2f3a4b5d4c6e8f90a1b2c3d4e5f6/events/event-00012-5c03b4c5-d6e7-4f80-91a2-b3c4d5e6f708.json": "openhands",
  "openhands/conversations/7c1e2f3a4b5d4c6e8f90a1b2c3d4e5f6/subagents/8f7e6d5c4b3a49218070f1e2d3c4b5a6/events/event-00000-71e2d3c4-b5a6-4978-8695-a4b3c2d1e0f9.json":
    "openhands", // a sub-agent's conversation: left out
  "openhands/sessions/5a6b7c8d9e0f4a1b8c2d3e4f5a6b7c8d/events/0.json": "openhands",
  "openhands/sessions/5a6b7c8d9e0f4a1b8c2d3e4f5a6b7c8d/events/1.json": "openhands",
  "openhands/sessions/5a6b7c8d9e0f4a1b8c2d3e4f5a6b7c8d/events/2.json": "openhands",
  "openhands/sessions/5a6b7c8d9e0f4a1b8c2d3e4f5a6b7c8d/events/3.json": "openhands",
  "openhands/sessions/5a6b7c8d9e0f4a1b8c2d3e4f5a6b7c8d/events/4.json": "openhands",
  "openhands/sessions/5a6b7c8d9e0f4a1b8c2d3e4f5a6b7c8d/events/5.json": "openhands",
  "openhands/sessions/5a6b7c8d9e0f4a1b8c2d3e4f5a6b7c8d/events/6.json": "openhands",
  "openhands/sessions/5a6b7c8d9e0f4a1b8c2d3e4f5a6b7c8d/events/7.json": "openhands",
  "openhands/sessions/5a6b7c8d9e0f4a1b8c2d3e4f5a6b7c8d/events/8.json": "openhands",
  "openhands/sessions/5a6b7c8d9e0f4a1b8c2d3e4f5a6b7c8d/events/9.json": "openhands",
  "openhands/sessions/5a6b7c8d9e0f4a1b8c2d3e4f5a6b7c8d/metadata.json": null, // V0's title and repository: read with its events
  "openhands/v1/events/2b3c4d5e-6f70-4819-a2b3-c4d5e6f70819/20251120140203_MessageEvent_8e9fa0b1c2d34e4f8a5b6c7d8e9fa0b1": "openhands",
  "openhands/v1/events/2b3c4d5e-6f70-4819-a2b3-c4d5e6f70819/20251120140215_MessageEvent_9fa0b1c2d3e44f5a9b6c7d8e9fa0b1c2": "openhands",
  "text-generation-webui/logs/Chiharu Yamada_persistent.json": "text-generation-webui", // to August 2023: data, data_visible
  "text-generation-webui/logs/chat/Chiharu Yamada/Lisbon trip.json": "text-generation-webui", // logs/ before 2025, renamed, no metadata
  "text-generation-webui/user_data/logs/chat/Chiharu Yamada/20250520-14-03-12.json": "text-generation-webui", // a swipe, attachments
  "text-generation-webui/user_data/logs/chat/Chiharu Yamada/20250601-09-00-00.json": "text-generation-webui", // the greeting alone
  "text-generation-webui/user_data/logs/chat_state.json": null, // the last chat seen per character
  "text-generation-webui/user_data/logs/instruct/20260410-18-22-05.json": {
    format: "text-generation-webui",
    conversations: 1,
    messages: 4,
    finds: "Tomorrow Porto expects rain",
  },
  "text-generation-webui/user_data/logs/instruct/20260411-08-00-00.json": "text-generation-webui", // an empty chat
  "amazon-q/amazon-q/data.sqlite3": {
    format: "amazon-q",
    conversations: 2, // Amazon Q's conversations table: a chat of May 2025, one of October; a damaged row, an empty one
    messages: 10,
    finds: "times past midnight roll over once",
  },
  "amazon-q/kiro-cli/data.sqlite3": "amazon-q", // Kiro CLI's conversations_v2: Amazon Q's chat migration 008 copied (platform amazon-q), two of Kiro's own (kiro-cli)
  "amazon-q/saved/ferry-fares.json": {
    format: "amazon-q",
    conversations: 1, // a chat /save wrote
    messages: 2,
    finds: "Children under 4 travel free",
  },
  "goose/sessions/20250119_101500.jsonl": "goose", // the first versions' file: no metadata line
  "goose/sessions/20250612_091500.jsonl": {
    format: "goose",
    conversations: 1, // a session file of 1.9 and before: its metadata line, then a message a line
    messages: 3,
    finds: "times past midnight now roll over",
  },
  "pi/sessions/--home-ana-src-tide-tables--/2026-02-10T09-15-00-000Z_6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f.jsonl": {
    format: "pi",
    conversations: 1, // version 3: a branch left for another, a compaction, a /name
    messages: 6,
    finds: "raises ValueError for an hour past 24",
  },
  "pi/sessions/--home-ana-src-tide-tables--/2025-12-03T14-00-00-000Z_9d8c7b6a-5f4e-4d3c-8b2a-190817263544.jsonl": "pi", // version 1: no ids
  "pi/sessions/--home-ana-bread--/2025-12-27T18-40-00-000Z_2a3b4c5d-6e7f-4a8b-9c0d-1e2f3a4b5c6d.jsonl": "pi", // version 2: a hookMessage
  "llm/logs.db": {
    format: "llm",
    conversations: 5, // 0.31's responses and 0.32's threads, one continued across both, a response also logged as a turn read once
    messages: 17,
    finds: "roll_over no longer adds the day",
  },
  "llm-0.9/logs.db": "llm", // 0.5 to 0.16's tables, and 0.4's rows kept as `logs`
  "llm-0.4/logs.db": "llm", // 0.4's `log` table
  "kimi-cli/sessions/92a49af72d608970e86aec3cc07aecb9/6b0f4c2e-93d1-4a7e-b5c8-2f1e0d9a7c34/wire.jsonl": {
    format: "kimi-cli",
    conversations: 1, // what the UI showed (1.49): prompts, a steer, the answers; thinking and a sub-agent's events left out
    messages: 6,
    finds: "truncates the file before the last reading is flushed",
  },
  "kimi-cli/sessions/92a49af72d608970e86aec3cc07aecb9/6b0f4c2e-93d1-4a7e-b5c8-2f1e0d9a7c34/context.jsonl": "kimi-cli", // the model's context: read through the wire beside it
  "kimi-cli/sessions/92a49af72d608970e86aec3cc07aecb9/6b0f4c2e-93d1-4a7e-b5c8-2f1e0d9a7c34/context_1.jsonl": "kimi-cli", // a context the CLI set aside
  "kimi-cli/sessions/92a49af72d608970e86aec3cc07aecb9/6b0f4c2e-93d1-4a7e-b5c8-2f1e0d9a7c34/state.json": "kimi-cli", // the title the user gave
  "kimi-cli/sessions/92a49af72d608970e86aec3cc07aecb9/6b0f4c2e-93d1-4a7e-b5c8-2f1e0d9a7c34/subagents/a1c9e2f04/wire.jsonl": "kimi-cli", // a sub-agent's: left out
  "kimi-cli/sessions/92a49af72d608970e86aec3cc07aecb9/6b0f4c2e-93d1-4a7e-b5c8-2f1e0d9a7c34/subagents/a1c9e2f04/context.jsonl": "kimi-cli",
  "kimi-cli/sessions/92a49af72d608970e86aec3cc07aecb9/0d8e5b71-2c4a-4f93-8e16-7a5b3c9d1e20/wire.jsonl": "kimi-cli", // 0.59 to 0.85: no metadata line
  "kimi-cli/sessions/92a49af72d608970e86aec3cc07aecb9/0d8e5b71-2c4a-4f93-8e16-7a5b3c9d1e20/context.jsonl": "kimi-cli", // a compaction's summary: the wire beside it is read
  "kimi-cli/sessions/92a49af72d608970e86aec3cc07aecb9/0d8e5b71-2c4a-4f93-8e16-7a5b3c9d1e20/metadata.json": null, // the web's title before state.json
  "kimi-cli/sessions/fe5b4af56ba5bbab909b4d3355f0b860/9a3c7e15-4b2d-4e8f-a061-5d7c2b9e4f18.jsonl": {
    format: "kimi-cli",
    conversations: 1, // before 0.59: the session was its context alone
    messages: 2,
    finds: "leap days are never generated",
  },
  "kimi-cli/sessions/fe5b4af56ba5bbab909b4d3355f0b860/9a3c7e15-4b2d-4e8f-a061-5d7c2b9e4f18_1.jsonl": "kimi-cli", // the context a D-Mail set aside
  "kimi-code/sessions/wd_tidepool_66fa9b73f26c/ses_lagoon7q2m/agents/main/wire.jsonl": {
    format: "kimi-code",
    conversations: 1, // the main agent as the resumed session shows it: an undone prompt, thinking, an injected reminder and a task's notice left out
    messages: 5,
    finds: "the 20 cm is the offset between them",
  },
  "kimi-code/sessions/wd_tidepool_66fa9b73f26c/ses_lagoon7q2m/agents/agent-0/wire.jsonl": "kimi-code", // a sub-agent's: left out
  "kimi-code/sessions/wd_tidepool_66fa9b73f26c/ses_lagoon7q2m/state.json": null, // the title, read beside the wire
  "kimi-code/sessions/wd_tidepool_66fa9b73f26c/ses_6b0f4c2e-93d1-4a7e-b5c8-2f1e0d9a7c34/agents/main/wire.jsonl": {
    format: "kimi-code",
    conversations: 1, // a Kimi CLI session /upgrade copied (protocol 1.0), continued in Kimi Code
    messages: 4,
    finds: "Added tests/test_rollover.py",
  },
  "kimi-code/sessions/wd_tidepool_66fa9b73f26c/ses_6b0f4c2e-93d1-4a7e-b5c8-2f1e0d9a7c34/state.json": null, // its Kimi CLI id and title
  "kiro-cli/sessions/cli/3f9a1c7e-2b4d-4e6f-8a0b-1c2d3e4f5a61.jsonl": {
    format: "kiro-cli",
    conversations: 1, // 2.2's TUI: whole across a compaction, /clear and a cancel; tool results and the CLI's retry left out
    messages: 8,
    finds: "the 29th of March is 23 hours long",
  },
  "kiro-cli/sessions/cli/3f9a1c7e-2b4d-4e6f-8a0b-1c2d3e4f5a61.json": "kiro-cli", // the session's metadata: read with its log
  "kiro-cli/sessions/cli/8c2e4a6b-1d3f-4a5b-9c7d-0e1f2a3b4c72.jsonl": "kiro-cli", // 1.28: no times in the log
  "kiro-cli/sessions/cli/8c2e4a6b-1d3f-4a5b-9c7d-0e1f2a3b4c72.json": "kiro-cli",
  "kiro-cli/sessions/cli/e7c3a915-6b2d-4c8f-a1e0-4d5f6a7b8c05.jsonl": "kiro-cli", // a classic chat copied in when resumed in the TUI
  "kiro-cli/sessions/cli/e7c3a915-6b2d-4c8f-a1e0-4d5f6a7b8c05.json": "kiro-cli",
  "kiro-cli/sessions/cli/5d4c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b83.json": "kiro-cli", // a session opened and left (its .jsonl empty)
  "kiro-cli/sessions/cli/5d4c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b83.jsonl": "unreadable", // empty: nothing to read
  "cursor/User/globalStorage/state.vscdb": {
    format: "cursor",
    conversations: 2, // an agent's composer (each bubble a row of its own), an older one (inline); an empty one
    messages: 6,
    finds: "refills each client's bucket at 10 tokens a second",
  },
  "cursor/User/workspaceStorage/a1b2c3d4e5f60718293a4b5c6d7e8f90/state.vscdb": "cursor", // the old chat panel's tabs
  "cursor/vscode-User/globalStorage/state.vscdb": null, // VS Code's own: no Cursor keys
  "cursor/wal/state.vscdb": "cursor", // its latest changes in the WAL beside it
  "cursor/wal/state.vscdb-wal": null, // the WAL, read with the database
  "aider/copied/bus-cli.aider.chat.history.md": "aider", // aider 0.8 (2023), copied, trailing spaces trimmed, a mode line on top
  "aider/tideapp/.aider.chat.history.md": {
    format: "aider",
    conversations: 2,
    messages: 12,
    finds: "Let's convert with zoneinfo, which knows the transitions",
  },
  "continue/sessions/0b9a8c7d-6e5f-4a3b-2c1d-0e9f8a7b6c5d.json": "continue", // 2023: the Python server's PersistedSessionInfo
  "continue/sessions/3b8f0c1e-6a2d-4f7b-9c5e-1d2a3b4c5d6e.json": "continue", // 2024: content a string, compact JSON, history first
  "continue/sessions/7c2e9a4f-0b1d-4e6a-8f3c-5d4e3f2a1b0c.json": {
    format: "continue",
    conversations: 1,
    messages: 4,
    finds: "to_local adds a fixed offset, so daylight saving time is never applied",
  },
  "continue/sessions/a1f0e2d3-c4b5-4a69-8788-796a5b4c3d2e.json": "continue", // "New Session", not in sessions.json
  // A session of no messages: its empty `history` is read as an empty list (Chatbot UI's wrapper), "files that hold no conversations".
  "continue/sessions/e5d4c3b2-a190-4f8e-9d7c-6b5a49382716.json": "upload",
  "continue/sessions/sessions.json": "continue", // the dates, the Python server's entry (session_id, seconds) first
  "codex/sessions/2025/08/14/rollout-2025-08-14T10-02-11-5c1e9a7b-2d3f-4e5a-9b8c-7d6e5f4a3b2c.jsonl": "codex", // no events (0.20)
  "codex/sessions/2025/10/29/rollout-2025-10-29T09-12-03-019a2d7a-41c4-78b1-b7cc-a45d62a89cd5.jsonl": {
    format: "codex",
    conversations: 1,
    messages: 4,
    finds: "the feed now sends `24:10` for boats after midnight",
  },
  "codex/sessions/2025/10/29/rollout-2025-10-29T09-16-00-019a2d80-aaaa-7bbb-8ccc-0123456789ab.jsonl": "codex", // a sub-agent's review
  // CLI 1.0.78's events: a sub-agent's turn and a rewound prompt inside; its workspace.yaml is YAML, no JSON file
  "copilot-cli/session-state/3f9c2a71-5b84-4d1e-9a6f-0c2e7d8b4a15/events.jsonl": {
    format: "copilot-cli",
    conversations: 1,
    messages: 4,
    finds: "`strptime('%H:%M')` rejects hours past 23",
  },
  "copilot-cli/session-state/a7e4b1c9-2d3f-4a5b-8c6d-9e0f1a2b3c4d/events.jsonl": "copilot-cli",
  "claude-memories-2026/memories/7e1d2c3b-4a59-4687-9a0b-1c2d3e4f5a6b.json": "claude:memories",
  "claude-memories-2026/projects/019a0b1c-2d3e-7f40-8152-63748596a7b8.json": "claude:memories",
  "claude-memories/conversations.json": "claude",
  "claude-memories/memories.json": "claude:memories",
  "claude-memories/projects.json": "claude:memories",
  "claude-memories/users.json": null,
  "markdown/claude-converted.md": "markdown",
  "markdown/cherry-studio-topic.md": "markdown", // Cherry Studio's topic export
  "markdown/export_deepchat_2026-04-14_18-20-00.md": "markdown", // DeepChat's export, read as DeepChat's (markdown/deepchat.ts)
  "markdown/copied-page.txt": "markdown",
  "markdown/notes-headings.md": null,
  "markdown/notes-not-a-chat.md": null,
  "markdown/pasted-bold.txt": "markdown",
  "markdown/prompt-response.md": "markdown",
  "markdown/user-assistant.md": {
    format: "markdown",
    conversations: 1,
    messages: 5,
    finds: "What humidity does a ball python terrarium need",
  },
  "README.md": null, // a note about the fixtures, no transcript
  "aistudio/Google AI Studio/Branch of Tides in Brest": "aistudio",
  "aistudio/Google AI Studio/Dr. Lee's notes v1.2": "aistudio",
  "aistudio/Google AI Studio/Tides in Brest": { format: "aistudio", conversations: 1, messages: 9, finds: "Is leaving at 05:30 sensible" },
  "aistudio/Google AI Studio/Untitled prompt": "aistudio",
  "chatbot-ui/chatbot-ui-data.json": "chatbot-ui",
  "chatbot-ui/chatbot_ui_history_3-14.json": {
    format: "chatbot-ui",
    conversations: 2,
    messages: 7,
    finds: "Give me a regex for UK postcodes",
  },
  "chatbot-ui/chatbot_ui_history_v1.json": "chatbot-ui",
  "lmstudio/conversations/1730000000000.conversation.json": {
    format: "lmstudio",
    conversations: 1,
    messages: 5,
    finds: "the closure only runs when the key is missing",
  },
  "lmstudio/conversations/1731000000000.conversation.json": "lmstudio",
  "lmstudio/conversations/Work/1730500000000.conversation.json": "lmstudio",
  "gpt4all/GPT4All/gpt4all-6f1c2a0e-3b7d-4c1e-9a52-0d4e8b1f7c31.chat": {
    format: "gpt4all",
    conversations: 1, // format version 12: a renamed chat, an answer that thought and called a tool
    messages: 3,
    finds: "The next high water is at 16:05",
  },
  "gpt4all/GPT4All/gpt4all-b2d84f0c-1e6a-4f3b-8c27-5a9e3d0f6b12.chat": "gpt4all", // version 10: the model's state flagged off
  "gpt4all/GPT4All/gpt4all-e7a3910d-5c2f-4b8e-a1d6-3f0b9c4e2d57.chat": "gpt4all", // version 5: the model's state skipped
  "gpt4all/cut/gpt4all-0c9d2e4f-8a1b-4d6c-b3e5-7f2a1c0d9e84.chat": "gpt4all", // cut short: read as a record saying why
  "gpt4all/nomic.ai/gpt4all-4c8e2a91-7d3b-4f06-b5a2-9e1c0d7f3a68.chat": "gpt4all", // version 0 (2.4.1), without magic or version, in the settings folder
  "chatbox/chatbox-exported-data-2025-3-5.json": {
    format: "chatbox",
    conversations: 2,
    messages: 6,
    finds: "add a readiness wait before the first request",
  },
  "page-assist/page-assist-2026-04-20T08_05_00.000Z.json": {
    format: "page-assist",
    conversations: 5, // a branch, a side-panel chat about a tab, an MCP tool call, a chat moved from chrome.storage.local; an empty one counted
    messages: 17,
    finds: "the borrow checker refuses the mutable borrow while the shared one lives",
  },
  "page-assist/page-assist-2024-06-02T08_40_11.512Z.json": "page-assist", // May 2024: chats in chrome.storage.local, newest message first
  "cherry-studio/data.json": {
    format: "cherry-studio",
    conversations: 3,
    messages: 11,
    finds: "Pushing may reallocate the vector",
  },
  "cherry-studio/Data/Files/f-old.txt": null, // an attachment the backup copies, no chat
  "cherry-studio-2/Data/cherrystudio.sqlite": "cherry-studio", // 2.x's database: data.json's first topic as 2.x migrates it, and one written in 2.x
  "lobechat/2025-06-14-09-12_LobeChat-data.json": {
    format: "lobechat",
    conversations: 4,
    messages: 16,
    finds: "le musée de Serralves, puis le marché do Bolhão",
  },
  "lobechat/LobeChat-sessions-v5.json": "lobechat",
  "big-agi/backup_chats_localhost_3_2025-04-12-1025.agi.json": {
    format: "big-agi",
    conversations: 2,
    messages: 8,
    finds: "lleva a un final sin damas donde las negras tienen la pareja de alfiles",
  },
  "big-agi/conversation_ingwer-lagern_2024-03-02-0920.agi.json": "big-agi",
  "big-agi/Big-AGI-flash-2025-04-12.agi.json": "big-agi",
  "jan/threads/4e8d1c0b-7a2f-4b6e-8c3d-5f9a0e1b2c74/messages.jsonl": "jan",
  "jan/threads/4e8d1c0b-7a2f-4b6e-8c3d-5f9a0e1b2c74/thread.json": "jan",
  "jan/threads/9b2f6a14-3c7e-4d8a-b1f0-6e2c9d4a7b35/messages.jsonl": {
    format: "jan",
    conversations: 1,
    messages: 7,
    finds: "zweimal täglich, alle 12 Stunden",
  },
  "jan/threads/9b2f6a14-3c7e-4d8a-b1f0-6e2c9d4a7b35/thread.json": "jan",
  "jan/threads/c0a7e5d3-1b9f-4c2e-a8d6-3f7b9e1c5a20/thread.json": "jan",
  "nextchat/Backup-2026_3_14 09_12_40.json": {
    format: "nextchat",
    conversations: 2,
    messages: 8,
    finds: "take an umbrella",
  },
  "sillytavern/chats/Mirela/Branch #3 - 2024-05-02@09h00m00s.jsonl": "sillytavern",
  "sillytavern/chats/Mirela/Mirela - 2024-05-01@12h30m15s.jsonl": {
    format: "sillytavern",
    conversations: 1,
    messages: 8,
    finds: "the lamp went dark on the night the Albatross sank",
  },
  "sillytavern/chats/Mirela/Mirela - 2024-06-01@08h00m00s.jsonl": "sillytavern",
  "sillytavern/group chats/1717171717171.jsonl": "sillytavern",
  "typingmind/data.json": { format: "typingmind", conversations: 2, messages: 10, finds: "Would a 200 L water butt cover that" },
  "typingmind-chunked/chunks/chats_part_1.json": "typingmind",
  "typingmind-chunked/data.json": null, // names the chunk files
  "typingmind-chunked/metadata.json": null,
  "chatgpt-2026/ads.json": null,
  "chatgpt-2026/conversation_asset_file_names.json": null,
  "chatgpt-2026/conversations-000.json": "chatgpt",
  "chatgpt-2026/conversations-001.json": "chatgpt",
  "chatgpt-2026/export_manifest.json": null,
  "chatgpt-2026/user.json": null,
  "chatgpt-2026-library/conversations-000.json": "chatgpt", // a deep-research report's conversation, one whose report the export lacks
  "chatgpt-2026-library/export_manifest.json": null,
  "chatgpt-2026-library/library_files.json": null, // the library: deep-research reports (file_….dat beside it) and an uploaded file
  "chatgpt-2026-library-export.zip": {
    format: "chatgpt",
    conversations: 3, // the two of conversations-000.json, and a report whose conversation the export lacks
    messages: 8,
    finds: "Horta to Madalena is a 30-minute crossing several times a day",
  },
  "chatgpt-sharded/conversations-000.json": "chatgpt",
  "chatgpt-sharded/conversations-001.json": "chatgpt",
  "chatgpt-sharded/export_manifest.json": null,
  "chatgpt-sharded/user.json": null,
  "chatgpt/conversations.json": {
    format: "chatgpt",
    conversations: 4,
    messages: 20,
    finds: "fails the first time a region appears, use a defaultdict",
  },
  "chatgpt/message_feedback.json": "upload", // []
  "chatgpt/shared_conversations.json": null,
  "chatgpt/user.json": null,
  "claude-2026/conversations.json": "claude",
  "claude-2026/memories.json": "claude:memories",
  "claude-2026/users.json": null,
  "claude/conversations.json": { format: "claude", conversations: 3, messages: 8, finds: "how many kanji a day for the JLPT N4" },
  "claude/projects.json": "claude:memories",
  "claude/users.json": null,
  "deepseek/conversations.json": {
    format: "deepseek",
    conversations: 2,
    messages: 6,
    finds: "why does the borrow checker reject my async closure",
  },
  "deepseek/history_messages-flat.json": "deepseek",
  "deepseek/history_messages.json": {
    format: "deepseek",
    conversations: 1,
    messages: 3,
    finds: "nginx 502 Bad Gateway after upgrading PHP",
  },
  "deepseek/user.json": null,
  "gemini-2026/My Activity.json": "gemini",
  "gemini-cli/tmp/7c4e1f0a9b2d3e5f6a7b8c9d0e1f2a3b4c5d6e7f8091a2b3c4d5e6f708192a3b/checkpoints/2026-05-02T10-00-31_000Z-cli.py-replace.json":
    null, // a file edit's restore point
  "gemini-cli/tmp/7c4e1f0a9b2d3e5f6a7b8c9d0e1f2a3b4c5d6e7f8091a2b3c4d5e6f708192a3b/checkpoint-tides.json": "gemini-cli", // /chat save: { history, authType }
  // Qwen Code's since (~/.qwen/projects): built from QwenLM/qwen-code chatRecordingService.ts's ChatRecord; a /rewind, a title.
  "qwen-code/projects/-home-rita-src-tram/chats/9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d.jsonl": {
    format: "qwen-code",
    conversations: 1,
    messages: 6,
    finds: "the 07:40 tram was that row",
  },
  // Qwen Code's of 2025 (~/.qwen/tmp): Gemini CLI's shape, its answers typed "qwen", stored as Qwen Code's (gemini-cli.test.ts), as Roo Code's tasks are Cline's format.
  "qwen-code/tmp/3e9a1c7b5d2f4a6e8c0b1d3f5a7c9e2b4d6f8a0c1e3b5d7f9a2c4e6b8d0f1a3c/chats/session-2025-10-20T08-30-4f2d9c1e.json":
    "gemini-cli",

  "gemini-cli/tmp/7c4e1f0a9b2d3e5f6a7b8c9d0e1f2a3b4c5d6e7f8091a2b3c4d5e6f708192a3b/checkpoint-brest%20csv.json": "gemini-cli", // /chat save in 2025: the history alone
  "gemini-cli/tmp/7c4e1f0a9b2d3e5f6a7b8c9d0e1f2a3b4c5d6e7f8091a2b3c4d5e6f708192a3b/logs.json": null, // the prompts alone, not read
  "gemini-cli/tmp/7c4e1f0a9b2d3e5f6a7b8c9d0e1f2a3b4c5d6e7f8091a2b3c4d5e6f708192a3b/chats/8b7e6d5c-1a2b-4c3d-9e8f-0a1b2c3d4e5f/b1e2c3d4-5f60-4a7b-8c9d-0e1f2a3b4c5d.jsonl":
    "gemini-cli", // a subagent's
  "gemini-cli/tmp/7c4e1f0a9b2d3e5f6a7b8c9d0e1f2a3b4c5d6e7f8091a2b3c4d5e6f708192a3b/chats/session-2026-03-14T09-12-5f0c2a1e.json":
    "gemini-cli", // one JSON object (to April 2026)
  "gemini-cli/tmp/7c4e1f0a9b2d3e5f6a7b8c9d0e1f2a3b4c5d6e7f8091a2b3c4d5e6f708192a3b/chats/session-2026-05-02T10-00-8b7e6d5c.jsonl": {
    format: "gemini-cli",
    conversations: 1,
    messages: 4,
    finds: "high tide at 06:41 with 7.1 m first",
  },
  "gemini-ja/Takeout/マイ アクティビティ/Gemini アプリ/マイアクティビティ.json": "gemini",
  "gemini-ja/Takeout/マイ アクティビティ/検索/マイアクティビティ.json": "aside",
  "gemini-locales/de.json": "gemini",
  "gemini-locales/el.json": "gemini",
  "gemini-locales/es.json": "gemini",
  "gemini-locales/fr.json": "gemini",
  "gemini-locales/it.json": "gemini",
  "gemini-locales/ko.json": "gemini",
  "gemini-locales/pt.json": "gemini",
  "gemini-locales/zh.json": "gemini",
  "gemini/My Activity.json": { format: "gemini", conversations: 4, messages: 12, finds: "difference between a list and a tuple in Python" },
  "gemini/Search/My Activity.json": "aside",
  "gemini/archive_browser.html": "unreadable", // Takeout's index page
  "gemini-html/Takeout/archive_browser.html": "unreadable",
  "gemini-html/Takeout/My Activity/Gemini Apps/MyActivity.html": {
    format: "gemini",
    conversations: 3,
    messages: 10,
    finds: "How much water for a 70% hydration pizza dough",
  },
  "gemini-html/Takeout/My Activity/Search/MyActivity.html": "aside",
  "gemini-ja/Takeout/アーカイブの概要.html": "unreadable",
  "chatgpt/chat.html": "unreadable", // ChatGPT's page for reading the export
  "chatgpt-2026/chat.html": "unreadable",
  "malformed/chat.html": "unreadable",
  "odd/MyActivity.html": "gemini",
  "grok/prod-grok-backend.json": { format: "grok", conversations: 3, messages: 11, finds: "Kafka consumer lag alert fires every night" },
  "grok/prod-mc-asset-server/3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f/content": null, // an uploaded file, named without a type
  "grok/prod-mc-auth-mgmt-api.json": null,
  "grok/prod-mc-billing.json": null,
  "librechat/bash-strict-mode.json": "librechat",
  "librechat/cron-haiku-branches.json": "librechat",
  "librechat/proxmox-zfs-tree.json": {
    format: "librechat",
    conversations: 1,
    messages: 5,
    finds: "Proxmox host keeps dropping its ZFS pool after reboot",
  },
  "malformed/chatgpt-truncated.json": "chatgpt",
  "malformed/claude-truncated.json": "claude",
  "malformed/cut-in-escape.json": "claude",
  "malformed/empty.json": "unreadable",
  "malformed/gemini-truncated.json": "gemini",
  "malformed/not-an-export.json": null,
  "malformed/upload-bad-line.ndjson": "upload",
  "malformed/upload-truncated.json": "upload",
  "odd/chatgpt-2023-code.json": "chatgpt",
  "odd/chatgpt-analysis-channel.json": "chatgpt",
  "odd/chatgpt-empty/conversations.json": "upload", // an empty list: no conversations, whoever wrote it
  "odd/chatgpt-empty/message_feedback.json": "upload",
  "odd/chatgpt-empty/user.json": null,
  "odd/chatgpt-times.json": "chatgpt",
  "odd/chatgpt-wrapped.json": "chatgpt",
  "odd/chatgpt-writing.json": "chatgpt",
  "odd/claude-2024-artifacts.json": "claude",
  "odd/claude-files-v2.json": "claude",
  "odd/claude-partly-linked.json": "claude",
  "odd/claude-repeated-ids.json": "claude",
  "odd/claude-utf16.json": "claude", // read as the UTF-8 it holds
  "odd/gemini-fr-mixed.json": "gemini",
  "open-webui/chat-export-1715000100000.json": "open-webui",
  "open-webui/ollama-webui-2024.json": "open-webui",
  "open-webui/data/webui.db": {
    format: "open-webui",
    conversations: 4, // the export's chats, as the server stores them; a share link's copy, a note's chat, a damaged row, another user's chat and an empty one left out
    messages: 15,
    finds: "levain hydration water for a 75% loaf",
  },
  "open-webui/data-2024/webui.db": "open-webui", // peewee's schema of early 2024: `timestamp`, the chat as text
  "open-webui/chat-export-1738400000000.json": {
    format: "open-webui",
    conversations: 4,
    messages: 15,
    finds: "levain hydration water for a 75% loaf",
  },
  "upload/array.json": { format: "upload", conversations: 2, messages: 4, finds: "ready for a half marathon in 10 weeks" },
  "upload/conversations.ndjson": "upload",
  "upload/single.json": "upload",
  "vscode-chat/User/workspaceStorage/3f9b2c1d8e7a6b5c4d3e2f1a0b9c8d7e/chatSessions/5d2e8f14-6a3b-4c9d-8e1f-2a3b4c5d6e7f.json":
    "vscode-chat", // the whole session (older versions)
  "vscode-chat/User/workspaceStorage/3f9b2c1d8e7a6b5c4d3e2f1a0b9c8d7e/chatSessions/9e4a7c21-3b5d-4f6e-8a9b-0c1d2e3f4a5b.jsonl": {
    format: "vscode-chat",
    conversations: 1,
    messages: 4,
    finds: "wait for the `ready` event before the first upload",
  },
};

/** A row's format (or what detection makes of the file), in the words of FIXTURES. */
export function formatOf(row: string | null | Imported): string | null {
  return row === null || typeof row === "string" ? row : row.format;
}

/** The fixtures imported through every face, with what each gives. */
export function importedFixtures(): [file: string, expected: Imported][] {
  return Object.entries(FIXTURES).flatMap(([file, row]) =>
    row !== null && typeof row === "object" ? [[file, row] as [string, Imported]] : [],
  );
}
