import { z } from "zod";
import { ErrorBody } from "../schemas/common.js";
import { BulkMoveNotFound } from "../schemas/memories.js";
import { TOOLS } from "../mcp/tools.js";
import { METADATA_PATH } from "./resource-metadata.js";
import type { Route } from "./routes.js";

const DESCRIPTIONS: Record<number, string> = {
  400: "Invalid input; `error` names the field",
  401: "Missing or wrong bearer token; WWW-Authenticate points at the resource metadata (past 10 wrong tokens a minute, answered after 1 s, with Retry-After)",
  403: "Forbidden: a Host header this server does not answer to (DNS rebinding)",
  404: "Not found",
  409: "Conflict",
  413: "Body too large",
  415: "A body declared as something other than JSON (Content-Type), as JSON in a charset other than UTF-8, or compressed (Content-Encoding)",
  500: "Internal server error",
  503: "Unavailable: a table of the store is damaged (`error` names it; `mnemo doctor` on the server's machine repairs it), the disk is full, or a dependency cannot be reached",
};

function schema(type: z.ZodType): object {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(type, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
  return rest;
}

/** What every authenticated route can answer, whatever it does: the token, the Host guard, a fault, a damaged table. */
const EVERY_ROUTE = [401, 403, 500, 503];

/** A route that takes input checks it, and answers 400 naming the field: GET /api/buckets?v=3 did, undocumented. */
const takesInput = (route: Route) => Boolean(route.query || route.body || route.stream || route.path.includes("{"));

function statusesOf(route: Route): number[] {
  const input = [...(takesInput(route) ? [400] : []), ...(route.body || route.stream ? [413] : []), ...(route.body ? [415] : [])];
  return [...new Set([...route.errors, ...EVERY_ROUTE, ...input])].sort((a, b) => a - b);
}

/** OpenAPI 3.1, generated from the same route list and zod schemas the server uses. */
export function buildOpenApi(routes: Route[]): object {
  const paths: Record<string, Record<string, object>> = {};
  for (const route of routes) {
    const parameters = [
      ...[...route.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({ name, in: "path", required: true, schema: { type: "string" } })),
      ...Object.entries(route.query?.shape ?? {}).map(([name, field]) => ({
        name,
        in: "query",
        required: !(field as z.ZodType).safeParse(undefined).success,
        schema: schema(field as z.ZodType),
      })),
    ];
    const errors = Object.fromEntries(
      statusesOf(route).map((status) => [
        String(status),
        {
          description: DESCRIPTIONS[status] ?? "Error",
          content: {
            "application/json": {
              schema: schema(status === 404 && route.path === "/api/v2/memory/update" ? z.union([ErrorBody, BulkMoveNotFound]) : ErrorBody),
            },
          },
        },
      ]),
    );
    const tools = TOOLS.filter((tool) => tool.twin === route.name).map((tool) => tool.name);
    (paths[route.path] ??= {})[route.method] = {
      summary: route.summary,
      ...(tools.length ? { "x-mcp-tools": tools } : {}),
      ...(route.origin === "mnemo" ? { tags: ["mnemo additions"] } : {}),
      security: [{ bearer: [] }],
      ...(parameters.length ? { parameters } : {}),
      ...(route.body ? { requestBody: { required: true, content: { "application/json": { schema: schema(route.body) } } } } : {}),
      ...(route.stream
        ? { requestBody: { required: true, content: { "application/octet-stream": { schema: { type: "string", format: "binary" } } } } }
        : {}),
      responses: {
        "200": {
          description: route.produces ? "OK: one JSON document a line, each of this schema" : "OK",
          content: { [route.produces ?? "application/json"]: { schema: schema(route.response) } },
        },
        ...errors,
      },
    };
  }
  paths["/openapi.json"] = {
    get: { summary: "This document (no token needed)", security: [], responses: { "200": { description: "OpenAPI 3.1" } } },
  };
  paths["/healthz"] = { get: { summary: "Liveness (no token needed)", security: [], responses: { "200": { description: "OK" } } } };
  const metadata: [string, string][] = [
    [METADATA_PATH, "the API"],
    [`${METADATA_PATH}/mcp`, "/mcp"],
  ];
  for (const [path, what] of metadata) {
    paths[path] = {
      get: {
        summary: `OAuth protected resource metadata (RFC 9728) of ${what}, where a 401's WWW-Authenticate points: a bearer token in the Authorization header, and no authorization server (no token needed)`,
        security: [],
        responses: { "200": { description: "The metadata" } },
      },
    };
  }
  paths["/images/{memoryId}"] = {
    get: {
      summary: "An image memory's file, by the signed URL in image_url (valid 4 hours)",
      security: [],
      parameters: [
        { name: "memoryId", in: "path", required: true, schema: { type: "string" } },
        { name: "exp", in: "query", required: true, schema: { type: "string" } },
        { name: "sig", in: "query", required: true, schema: { type: "string" } },
      ],
      responses: {
        "200": { description: "The image" },
        "403": { description: "Expired or altered link" },
        "404": { description: "Not found" },
      },
    },
  };
  return {
    openapi: "3.1.0",
    info: { title: "mnemo: memory and chat-history service", version: "1.0.0" },
    components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
    security: [{ bearer: [] }],
    paths,
  };
}
