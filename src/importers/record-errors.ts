import { AppError } from "../shared/errors.js";
import type { RecordContext } from "./types.js";

/** A record of a recognised export that is not an object (the file was altered or is not an export). */
export function notAConversation(context: RecordContext): AppError {
  return new AppError("invalid_input", `${context.label}: element ${context.index} is not a conversation object`, {
    suggestion: "The file does not look like an unmodified export: download the export again.",
  });
}
