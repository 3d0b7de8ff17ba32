// Which of Claude's export files hold memories (memories.ts reads them): known by the keys of their
// first record, so the registry can tell them without loading the reader.

/** A record of Claude's memory (memories.json, memories/<uuid>.json) or of a project (projects.json, projects/<uuid>.json). */
export function isClaudeMemoryRecord(keys: ReadonlySet<string>): boolean {
  const memory = keys.has("conversations_memory") || keys.has("project_memories") || keys.has("memory_files");
  const project = keys.has("docs") && (keys.has("prompt_template") || keys.has("is_starter_project"));
  return memory || project;
}
