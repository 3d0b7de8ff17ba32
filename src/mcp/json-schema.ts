import { z } from "zod";

export type JsonSchema = { type: "object"; properties?: Record<string, Record<string, unknown>>; required?: string[] } & Record<
  string,
  unknown
>;

/**
 * A tool's input or output as JSON Schema, from the zod schema the REST API validates with, cut to
 * what tells a model something. Every tool's schemas go into the client's context on every turn,
 * and zod's own conversion spends tokens on nothing a model uses:
 * - a date-time's 400-character regex (a `format` says the same, on inputs; outputs need none),
 * - the ±2^53 bounds of an integer without real ones,
 * - `$schema` on every schema, `additionalProperties: false` on every object, and on every output
 *   object the list of its required fields (a client checks results against the rest; 425 of 3,840 tokens).
 * And a nullable value is an `anyOf` of its types, which every validator reads.
 * `describe` adds what an argument means, where its name and limits do not say it.
 */
export function toolJsonSchema(schema: z.ZodObject, io: "input" | "output", describe: Record<string, string> = {}): JsonSchema {
  const json = z.toJSONSchema(schema, {
    io,
    target: "draft-7",
    unrepresentable: "any",
    override: ({ zodSchema, jsonSchema }) => {
      const def = zodSchema._zod.def as { type: string; format?: string };
      if (def.type === "string" && (def.format === "datetime" || def.format === "date")) {
        delete jsonSchema.pattern;
        if (io === "input") jsonSchema.format = def.format === "date" ? "date" : "date-time";
      }
      if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
      if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
      // An input's too (request bodies are strict): tool-calls.ts refuses an unknown argument, naming it.
      if (jsonSchema.additionalProperties === false) delete jsonSchema.additionalProperties;
      if (io === "output") delete jsonSchema.required;
    },
  }) as JsonSchema;
  delete json["$schema"];
  oneTypeEach(json);
  for (const [name, text] of Object.entries(describe)) {
    const property = json.properties?.[name];
    if (!property) throw new Error(`describe: ${name} is not a property of this schema`);
    property["description"] = text;
  }
  return json;
}

/**
 * A list of types (`"type": ["string", "null"]`, zod's nullable) as an `anyOf` of one type each:
 * the list is valid draft-7, but not every client's validator takes it (the MCP Inspector flags it
 * as less portable). zod writes the list after `override` has run, so this walks the result.
 */
function oneTypeEach(schema: unknown): void {
  if (Array.isArray(schema)) return schema.forEach(oneTypeEach);
  if (schema === null || typeof schema !== "object") return;
  const node = schema as Record<string, unknown>;
  if (Array.isArray(node["type"])) {
    const types = node["type"] as string[];
    delete node["type"];
    node["anyOf"] = types.map((type) => ({ type }));
  }
  for (const value of Object.values(node)) oneTypeEach(value);
}
