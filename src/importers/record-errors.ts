import { AppError, isAppError } from "../shared/errors.js";
import { byteAt } from "./source.js";
import type { RecordContext } from "./types.js";

/** A record of a recognised export that is not an object (the file was altered or is not an export). */
export function notAConversation(context: RecordContext): AppError {
  return unreadable(context, "not a conversation object");
}

/** A record its converter failed on: the error, or one naming the record around what went wrong. */
export function unreadableRecord(context: RecordContext, error: unknown): AppError {
  if (isAppError(error) && error.code === "invalid_input") return error;
  return unreadable(context, `cannot be read (${error instanceof Error ? error.message : String(error)})`);
}

function unreadable(context: RecordContext, problem: string): AppError {
  return new AppError(
    "invalid_input",
    `${context.label}, record ${context.index + 1} (at ${byteAt(context.byte, context.encoding)}): ${problem}`,
    {
      suggestion: "That record is left out and the rest of the file is read: check that the file is an unmodified export.",
      details: { record: context.index + 1, recordByte: context.byte },
    },
  );
}
