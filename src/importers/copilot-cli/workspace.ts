// A Copilot CLI session's workspace.yaml, beside its events.jsonl: the CLI's record of the session
// (`id`, `cwd`, `git_root`, `branch`, `name`, `user_named`, `created_at`, `updated_at` in CLI 1.0.78,
// WildChildForLife/lantern fixtures/copilot-home/session-state/; `summary` where earlier versions, 0.0.41x,
// kept the name). `name` is what /resume lists: the first prompt, the title the CLI gave it, or the name
// the user gave with /rename (`user_named: true`). YAML, read with the `yaml` package, loaded only
// when a session has such a file.
import type { RecordContext } from "../types.js";
import { isObject, nonEmptyString } from "../json-values.js";
import { smallText } from "../source.js";

/** More than any workspace.yaml holds (a few hundred bytes): a larger file is not the CLI's. */
const MAX_BYTES = 64 * 1024;

/** The session's name in the workspace.yaml beside its events; undefined when there is none, or it cannot be read (counted). */
export async function workspaceName(context: Pick<RecordContext, "sibling" | "skip">): Promise<string | undefined> {
  const source = await context.sibling?.("workspace.yaml");
  if (source === undefined) return undefined;
  try {
    const text = await smallText(source, MAX_BYTES);
    if (text === undefined) return undefined;
    const { parse } = await import("yaml");
    const workspace: unknown = parse(text);
    return isObject(workspace) ? (nonEmptyString(workspace.name) ?? nonEmptyString(workspace.summary)) : undefined;
  } catch {
    context.skip("workspace.yaml files that could not be read (the session keeps the title its events give)");
    return undefined;
  }
}
