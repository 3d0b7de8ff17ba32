// Where Crush keeps each project's sessions: the crush.db in the project's data folder (`.crush` in
// it unless configured otherwise), every folder Crush ran in listed in projects.json in its global
// data folder (charmbracelet/crush internal/projects/projects.go, since 0.25, December 2025:
// `{ "projects": [{ "path", "data_dir", "last_accessed" }] }`; `data_dir` as configured, so relative
// to the project's path in versions that did not resolve it; internal/cmd/stats.go reads each
// project's data_dir/crush.db the same way).
import path from "node:path";
import { arrayOf, isObject, jsonObjectIn, nonEmptyString } from "../json-values.js";

/** The crush.db of each project projects.json lists, each once. */
export function projectDatabases(text: string): string[] {
  const databases = arrayOf(jsonObjectIn(text)?.projects)
    .filter(isObject)
    .flatMap((project) => {
      const dataDir = nonEmptyString(project.data_dir);
      const folder = nonEmptyString(project.path);
      if (dataDir === undefined || (folder === undefined && !path.isAbsolute(dataDir))) return [];
      return [path.resolve(folder ?? "", dataDir, "crush.db")];
    });
  return [...new Set(databases)];
}
