// The other files of a chat export (the account, feedback, projects…), known by their keys and listed
// by each format's importer: passed alone instead of the conversations, each is named, with the file
// to pass instead.
import { AppError } from "../shared/errors.js";
import { IMPORTERS } from "./registry.js";

/** The error for a lone file that is one of an export's other files, or undefined when it is none of them. */
export function sideFileError(label: string, keys: Set<string>): AppError | undefined {
  const known = IMPORTERS.flatMap((importer) => importer.sideFiles ?? []).find((side) => side.keys.every((key) => keys.has(key)));
  if (known === undefined) return undefined;
  return new AppError("invalid_input", `${label}: this is ${known.what}, not the conversations`, { suggestion: known.instead });
}
