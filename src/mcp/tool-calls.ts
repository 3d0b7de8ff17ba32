import type { CallToolResult, Tool as ListedTool } from "@modelcontextprotocol/sdk/types.js";
import type { MnemoService } from "../core/index.js";
import { parseInput } from "../schemas/parse.js";
import { AppError } from "../shared/errors.js";
import { toolError } from "./errors.js";
import { toolJsonSchema } from "./json-schema.js";
import { TOOLS, TOOLS_BY_NAME, toolSchemas } from "./tools.js";

let listed: ListedTool[] | undefined;

/** The tools as tools/list shows them, built once per process from the schemas. */
export function listTools(): ListedTool[] {
  listed ??= TOOLS.map((tool) => {
    const { input, output } = toolSchemas(tool);
    return {
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: toolJsonSchema(input, "input", tool.arguments as Record<string, string> | undefined),
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
  log: (line: string) => void,
): Promise<CallToolResult> {
  const tool = TOOLS_BY_NAME.get(name);
  if (!tool) {
    return toolError(
      AppError.invalid("name", `there is no tool ${JSON.stringify(name)}`, `Call one of: ${[...TOOLS_BY_NAME.keys()].join(", ")}.`),
      log,
    );
  }
  try {
    const input = parseInput(toolSchemas(tool).input, args ?? {});
    const svc = await service();
    const result = await tool.run(svc, input);
    const note = await tool.note?.(svc);
    const text = tool.text(result, input);
    // The output schema's fields only: for the tools whose text is long, it leaves that text out.
    const structured = toolSchemas(tool).output.safeParse(result);
    return {
      content: [{ type: "text", text: note ? `${text}\n\n${note}` : text }],
      structuredContent: (structured.success ? structured.data : result) as Record<string, unknown>,
    };
  } catch (error) {
    return toolError(error, log);
  }
}
