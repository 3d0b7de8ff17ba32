import { describe, expect, it } from "vitest";
import { ROUTES } from "../../src/http/routes.js";
import { ENDPOINTS, endpointPath, pathParams } from "../../src/schemas/endpoints.js";

describe("the route table", () => {
  it("registers each endpoint once, at the method and path ENDPOINTS gives it", () => {
    expect(ROUTES.map((route) => route.name).sort()).toEqual(Object.keys(ENDPOINTS).sort());
    for (const route of ROUTES) {
      expect({ method: route.method, path: route.path }, route.name).toEqual(ENDPOINTS[route.name]);
    }
    const keys = ROUTES.map((route) => `${route.method} ${route.path}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("fills an endpoint's path parameters, encoded, and refuses one left out", () => {
    expect(pathParams(ENDPOINTS.memoryHistory)).toEqual(["memoryId"]);
    expect(endpointPath(ENDPOINTS.memoryHistory, { memoryId: "mem_1/../x?y" })).toBe("/api/v2/memory/mem_1%2F..%2Fx%3Fy/history");
    expect(endpointPath(ENDPOINTS.renameBucket, { bucketId: 7 })).toBe("/api/buckets/7");
    expect(endpointPath(ENDPOINTS.storeMemory)).toBe("/api/memory");
    expect(() => endpointPath(ENDPOINTS.deleteBucket)).toThrow(/no value for \{bucketId\}/);
  });
});
