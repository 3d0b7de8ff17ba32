// One Google AI Studio prompt file (a chat saved to Drive) to the upload shape. What each rule is based
// on: the schema Polylogue (Sinity/polylogue, polylogue/schemas/providers/gemini) inferred from 226 real
// files: `{ runSettings, systemInstruction: { text }, chunkedPrompt: { chunks, pendingInputs }, citations }`,
// a chunk `{ role: "user" | "model", text, parts, isThought, createTime, driveImage, driveDocument,
// inlineImage, inlineFile, youtubeVideo, executableCode, codeExecutionResult, branchParent, branchChildren, … }`;
// its reader (polylogue/sources/providers/gemini_message.py) for text before parts.
// - The branch the user last saw: the file's chunks, in order. AI Studio saves "Branch from here" as
//   another file (its `branchParent` / `branchChildren` name it), and a rerun replaces the answer, so a
//   file holds one line of the chat. `pendingInputs` (typed, never sent) is not kept.
// - Speakers: `user` is the human, `model` the assistant; each chunk is one message, as AI Studio shows it.
//   A chunk marked `isThought` (and a part marked `thought`) is the model's thinking, collapsed in the app:
//   left out. Code the model ran is kept fenced, with its output; a function call becomes `[tool: name]`.
// - Attachments: Drive and inline images `[image]`, video and YouTube `[video]`, audio `[audio]`, documents
//   `[file]` (a chunk holds the Drive file's id, not its name).
// - System instructions (`systemInstruction.text`) are the first message, `[system prompt]` (placeholders.ts).
// - Title: the file's name, which is the prompt's title in Drive. Times: `createTime` of the chunks where
//   there is one, else the file's date. Id: from the title and the first chunk's text, since the file holds
//   no id of its own (Drive's id is not in it): a prompt renamed in AI Studio is imported again as another.
import type { UploadConversation, UploadMessage } from "../../schemas/chat-history.js";
import { derivedId } from "../derived-id.js";
import { arrayOf, earliestIso, isObject, isoFromTime, nonEmptyString, stringOf, titleFrom, type JsonObject } from "../json-values.js";
import { codeBlock, codeOutput, joinPieces, systemPromptMessage, toolPlaceholder } from "../placeholders.js";
import { notAConversation } from "../record-errors.js";
import type { RecordContext } from "../types.js";

export function aiStudioPrompt(record: unknown, context: RecordContext): UploadConversation | undefined {
  if (!isObject(record)) throw notAConversation(context);
  const chunks = arrayOf(isObject(record.chunkedPrompt) ? record.chunkedPrompt.chunks : undefined).filter(isObject);
  const said = chunks.map(toMessage).filter((message): message is UploadMessage => message !== undefined);
  if (said.length === 0) {
    context.skip("prompts without any message text");
    return undefined;
  }
  const times = said.map((message) => message.createdAt).filter((time) => time !== undefined);
  const createdAt = earliestIso(times) ?? context.fallbackDate.toISOString();
  const updatedAt = times.sort().at(-1);
  const title = titleOf(context.path);
  const instructions = isObject(record.systemInstruction) ? record.systemInstruction : {};
  const prompt = systemPromptMessage(stringOf(instructions.text) ?? partsText(instructions.parts), "system-instruction", createdAt);
  return {
    complete: true, // the file holds the chat as it stands
    conversation: {
      id: derivedId("aistudio", [title, stringOf(chunks[0]?.text) ?? null]),
      title: titleFrom(title),
      createdAt,
      ...(updatedAt === undefined || updatedAt === createdAt ? {} : { updatedAt }),
      messages: prompt === undefined ? said : [prompt, ...said],
    },
  };
}

function toMessage(chunk: JsonObject, index: number): UploadMessage | undefined {
  if (chunk.isThought === true || (chunk.role !== "user" && chunk.role !== "model")) return undefined;
  const pieces = [
    nonEmptyString(chunk.text) ?? partsText(chunk.parts),
    ...attachments(chunk),
    ...code(chunk),
    ...arrayOf(chunk.parts).filter(isObject).flatMap(partExtras),
  ];
  const content = joinPieces([...new Set(pieces)]); // code may be both the chunk's and a part's
  if (content === "") return undefined;
  const createdAt = isoFromTime(chunk.createTime);
  return {
    id: nonEmptyString(chunk.id) ?? `chunk-${index + 1}`,
    role: chunk.role === "user" ? "human" : "assistant",
    content,
    ...(createdAt === undefined ? {} : { createdAt }),
  };
}

/** The text of a chunk's parts that are not thoughts. */
function partsText(parts: unknown): string | undefined {
  const texts = arrayOf(parts)
    .filter((part): part is JsonObject => isObject(part) && part.thought !== true)
    .map((part) => stringOf(part.text) ?? "");
  return texts.join("") || undefined;
}

const MEDIA_FIELDS: readonly [string, string][] = [
  ["driveImage", "[image]"],
  ["inlineImage", "[image]"],
  ["driveVideo", "[video]"],
  ["youtubeVideo", "[video]"],
  ["driveAudio", "[audio]"],
  ["driveDocument", "[file]"],
];

function attachments(chunk: JsonObject): string[] {
  const pieces = MEDIA_FIELDS.filter(([field]) => chunk[field] !== undefined && chunk[field] !== null).map(
    ([, placeholder]) => placeholder,
  );
  if (isObject(chunk.inlineFile)) pieces.push(mediaPlaceholder(chunk.inlineFile.mimeType));
  return pieces;
}

/** A part's inline file, code or function call (its text is in `partsText`). */
function partExtras(part: JsonObject): string[] {
  if (part.thought === true) return [];
  const pieces = code(part);
  if (isObject(part.inlineData)) pieces.push(mediaPlaceholder(part.inlineData.mimeType));
  if (isObject(part.fileData)) pieces.push(mediaPlaceholder(part.fileData.mimeType));
  if (isObject(part.functionCall)) pieces.push(toolPlaceholder(part.functionCall.name));
  return pieces;
}

/** Code the model ran and what it printed. */
function code(holder: JsonObject): string[] {
  const ran = isObject(holder.executableCode) ? codeBlock(holder.executableCode.language, holder.executableCode.code) : undefined;
  const printed = isObject(holder.codeExecutionResult) ? codeOutput(holder.codeExecutionResult.output) : undefined;
  return [ran, printed].filter((piece): piece is string => piece !== undefined);
}

function mediaPlaceholder(mimeType: unknown): string {
  const type = stringOf(mimeType) ?? "";
  return type.startsWith("image/") ? "[image]" : type.startsWith("video/") ? "[video]" : type.startsWith("audio/") ? "[audio]" : "[file]";
}

/** The prompt's title: the file's name, as Drive names it (without a `.json` a copy may have been given). */
function titleOf(path: string): string {
  return (path.split("/").at(-1) ?? path).replace(/\.json$/i, "");
}
