import { escapeRegExp } from "../text/regexp.js";
/** A route as the API lists it: a method and an OpenAPI path template (`/api/memories/{id}`). */
export interface RouteTemplate {
  method: string;
  path: string;
}

/**
 * The methods the API answers on a path, so that a known path asked with another method gets 405
 * and an `Allow` header rather than "no such endpoint".
 */
export function allowedMethods(routes: RouteTemplate[]): (path: string) => string[] {
  const patterns = routes.map(({ method, path }) => ({ method: method.toUpperCase(), pattern: templatePattern(path) }));
  return (path) => [...new Set(patterns.filter(({ pattern }) => pattern.test(path)).map(({ method }) => method))];
}

/**
 * The endpoints whose path ends in the same word as `path` (`/api/memories/abc/history` →
 * `GET /api/v2/memory/{memoryId}/history`), for a 404 to point a client that guessed a path to
 * the one it meant.
 */
export function endpointsEndingLike(routes: RouteTemplate[]): (path: string) => string[] {
  return (path) => {
    const last = lastSegment(path);
    if (last === "" || /^\{/.test(last)) return [];
    return routes.filter((route) => lastSegment(route.path) === last).map(({ method, path }) => `${method.toUpperCase()} ${path}`);
  };
}

const lastSegment = (path: string) => path.replace(/\/+$/, "").split("/").at(-1) ?? "";

function templatePattern(template: string): RegExp {
  const source = template
    .split(/(\{\w+\})/)
    .map((part) => (/^\{\w+\}$/.test(part) ? "[^/]+" : escapeRegExp(part)))
    .join("");
  // Not strict about a trailing slash, as the router is not.
  return new RegExp(`^${source}/?$`);
}
