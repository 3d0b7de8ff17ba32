import type { Context } from "hono";

/**
 * OAuth 2.0 Protected Resource Metadata (RFC 9728) for the API and for /mcp, and the 401's
 * `WWW-Authenticate: Bearer` challenge that points at it (RFC 6750 §3, RFC 9728 §5.1).
 *
 * mnemo takes a static bearer token, made by `mnemo serve` or `mnemo users add`: there is no
 * authorization server to send a client to, so the metadata names none (`authorization_servers`
 * is optional in RFC 9728) and says the token goes in the Authorization header. An MCP client
 * that follows the MCP authorization spec reads this after a 401; one that finds no
 * authorization server has nothing to start an OAuth flow with, and asks its user for the token
 * (a header) instead. The MCP Inspector 2.x still tries OAuth against the server's own URL when
 * the metadata names none (its core/auth/discovery.ts), and fails at the first step: there the
 * token goes in as an Authorization header in its server settings.
 */
export const METADATA_PATH = "/.well-known/oauth-protected-resource";

/** The path of the resource a request is for: /mcp has metadata of its own (its resource is the MCP endpoint). */
const resourcePathOf = (path: string) => (path === "/mcp" || path.startsWith("/mcp/") ? "/mcp" : "");

export function resourceMetadata(origin: string, resourcePath: "" | "/mcp"): object {
  return {
    resource: `${origin}${resourcePath}`,
    resource_name: resourcePath ? "mnemo (MCP)" : "mnemo",
    bearer_methods_supported: ["header"],
    resource_documentation: `${origin}/openapi.json`,
  };
}

/**
 * The challenge of a 401 on `c`: the realm, where the metadata is, and for a token that was sent
 * but is wrong, `invalid_token` (RFC 6750 §3.1; a request without one gets no error code).
 */
export function bearerChallenge(c: Context, wrongToken: boolean): string {
  const url = new URL(c.req.url);
  const metadata = `${url.origin}${METADATA_PATH}${resourcePathOf(url.pathname)}`;
  const error = wrongToken ? `, error="invalid_token", error_description="The API token is not one of this server's"` : "";
  return `Bearer realm="mnemo", resource_metadata="${metadata}"${error}`;
}
