// Google AI Studio's saved prompts and chats: with its history on, AI Studio saves each chat to the
// user's Google Drive, in the "Google AI Studio" folder, as a file named for its title, without a file type.
import { loaded, perRecord, type Importer } from "../importer.js";

export const aistudio: Importer = {
  id: "aistudio",
  name: "Google AI Studio",
  chatApp: true,
  accepts: "a prompt file from Google Drive's Google AI Studio folder, the folder, or its zip (as Drive downloads it)",
  howToGet:
    "With AI Studio's history saved to Drive: in Google Drive, the Google AI Studio folder → Download (a zip of every saved prompt).",
  extensions: ["", ".json"],
  detect: (sample) =>
    sample.keys.has("chunkedPrompt") || (sample.keys.has("runSettings") && sample.keys.has("systemInstruction")) ? {} : undefined,
  convert: loaded(async () => perRecord((await import("./prompt.js")).aiStudioPrompt)),
};
