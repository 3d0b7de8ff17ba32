import { deepForModel } from "../text/visible.js";
import type { CallToolResult, Tool as ListedTool } from "@modelcontextprotocol/sdk/types.js";
import type { MnemoService } from "../core/index.js";
import { parseInput } from "../schemas/parse.js";
import { AppError } from "../shared/errors.js";
import { shownId } from "../text/cut-text.js";
import { quoted, toolError, type McpLog } from "./errors.js";
import { toolJsonSchema } from "./json-schema.js";
import { TOOLS, TOOLS_BY_NAME, toolSchemas, type Tool } from "./tools.js";

let listed: ListedTool[] | undefined;

/** The tools as tools/list shows them, built once per process from the schemas. */
export function listTools(): ListedTool[] {
  listed ??= TOOLS.map((tool) => {
    const { input, output } = toolSchemas(tool);
    const inputSchema = toolJsonSchema(input, "input", tool.arguments as Record<string, string> | undefined);
    // The tool's own defaults, where they are not the endpoint's, shown where a client looks for them.
    for (const [name, value] of Object.entries(tool.defaults ?? {})) inputSchema.properties![name]!["default"] = value;
    return {
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema,
      outputSchema: toolJsonSchema(output, "output"),
      annotations: tool.annotations,
    };
  });
  return listed;
}

/**
 * One tools/call: the arguments checked against the tool's schema, as its REST twin checks its
 * body (the same schema, so the same message: "text: must not be empty"), the service call, and
 * the result both structured and as text. Any failure is an isError result.
 */
export async function callTool(
  name: string,
  args: Record<string, unknown> | undefined,
  service: () => Promise<MnemoService>,
  log: McpLog,
): Promise<CallToolResult> {
  const tool = TOOLS_BY_NAME.get(name);
  if (!tool) {
    return toolError(
      AppError.invalid("name", `there is no tool ${quoted(name)}`, `Call one of: ${[...TOOLS_BY_NAME.keys()].join(", ")}.`),
      log,
    );
  }
  const started = performance.now();
  const answer = await answerCall(tool, args, service, log);
  log(`${name}: ${answer.isError ? "refused" : "answered"} in ${Math.round(performance.now() - started)} ms`, "debug");
  return answer;
}

async function answerCall(
  tool: Tool,
  args: Record<string, unknown> | undefined,
  service: () => Promise<MnemoService>,
  log: McpLog,
): Promise<CallToolResult> {
  try {
    checkArgumentNames(tool, args ?? {});
    const input = { ...tool.defaults, ...parseInput(toolSchemas(tool).input, args ?? {}), ...tool.fixed };
    const svc = await service();
    const result = await tool.run(svc, input);
    const pastTheEnd = tool.pastTheEnd?.(result, input);
    if (pastTheEnd) return toolError(pastTheEnd, log);
    const note = await tool.note?.(svc);
    const text = tool.text(result, input);
    // The output schema's fields only: for the tools whose text is long, it leaves that text out.
    const structured = toolSchemas(tool).output.safeParse(tool.structured ? tool.structured(result) : result);
    // What a model reads holds no tag characters nor direction controls: the user would read other text (text/visible.ts).
    return deepForModel({
      content: [{ type: "text", text: note ? `${text}\n\n${note}` : text }],
      structuredContent: (structured.success ? structured.data : result) as Record<string, unknown>,
    });
  } catch (error) {
    return toolError(error, log);
  }
}

/**
 * An argument the tool does not take is refused, for every tool here, where the schema would drop
 * it: a misspelt one (`limit` for `count`) ignored gives the model an answer to another question,
 * and no sign of it. Checked before the schema (whose bodies are strict too) for the tool's own
 * words: its arguments are not its twin's fields (path parameters beside, `source` left out).
 * Not said in tools/list as `additionalProperties: false`: 104 more tokens there (4,970 of ~5,000),
 * for what the refusal says anyway.
 */
function checkArgumentNames(tool: Tool, args: Record<string, unknown>): void {
  const accepted = Object.keys(toolSchemas(tool).input.shape);
  const unknown = Object.keys(args).filter((name) => !accepted.includes(name));
  if (unknown.length === 0) return;
  throw AppError.invalid(
    namesOf(unknown),
    `${unknown.length === 1 ? "is not an argument" : "are not arguments"} of ${tool.name}`,
    accepted.length === 0 ? `Call ${tool.name} without arguments.` : `Use its arguments: ${accepted.join(", ")}.`,
  );
}

/** How many unknown arguments an error names: a client that sends thousands needs to hear of a few. */
const NAMED_ARGUMENTS = 5;

/** The names as they are when short and few (`limit, pinned`), else a few of them, each cut. */
function namesOf(names: string[]): string {
  const shown = names.slice(0, NAMED_ARGUMENTS).map((name) => shownId(name));
  return names.length > NAMED_ARGUMENTS ? `${shown.join(", ")} and ${names.length - NAMED_ARGUMENTS} more` : shown.join(", ");
}
