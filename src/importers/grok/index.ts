// Grok's data export (xAI): a zip whose prod-grok-backend.json holds the conversations, beside the
// account's other files and the uploaded files (prod-mc-asset-server/, not read).
import { loaded, perRecord, type Importer } from "../importer.js";

export const grok: Importer = {
  id: "grok",
  name: "Grok",
  chatApp: true,
  accepts: "the data export's zip, or its prod-grok-backend.json",
  howToGet: "grok.com → account settings → Download your data (accounts.x.ai/data); pass the zip it gives.",
  extensions: [".json"],
  // Each element of the file's `conversations` list is a conversation and its responses.
  detect: ({ keys }) => (keys.has("conversation") && keys.has("responses") ? {} : undefined),
  convert: loaded(async () => perRecord((await import("./conversation.js")).grokConversation)),
};
