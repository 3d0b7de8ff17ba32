// mnemo's own upload shape (the body of POST /api/chat-history/ingest/custom-online): records are
// passed through untouched. The core validates each one (UploadConversation) and reports field
// errors against it, so nothing is checked or fixed here.
import type { UploadConversation } from "../../schemas/chat-history.js";
import { perRecord, type Importer } from "../importer.js";

export const upload: Importer = {
  id: "upload",
  name: "mnemo's upload shape",
  chatApp: false,
  accepts: "a JSON object, a JSON array of them, or NDJSON (one per line)",
  howToGet: "Written by a script or another tool, one conversation per object: see POST /api/chat-history/ingest/custom-online.",
  extensions: [".json", ".jsonl", ".ndjson"],
  // An empty list is an upload of no conversations, whichever app wrote it. Grok's records have a
  // `conversation` too, beside their `responses`: a record is judged whole (ended), or a Grok
  // conversation whose `conversation` runs past the sample would be taken for an upload.
  detect: ({ keys, emptyList, ended }) => ((keys.has("conversation") && !keys.has("responses") && ended) || emptyList ? {} : undefined),
  convert: perRecord((record) => record as UploadConversation),
  keepsRepeats: true,
};
