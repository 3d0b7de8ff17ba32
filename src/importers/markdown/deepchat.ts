// DeepChat's Markdown export (ThinkInAIXYZ/deepchat src/main/exporter/formats/conversationExporter.ts
// exportToMarkdown, 0.4 to 1.1): `# title`, `**Conversation ID:** <id>` and other header lines, then
// `## 👤 用户 (<time>)` and `## 🤖 助手 (<time>)` (in Chinese whatever the app's language, the time
// `toLocaleString()`'s) between rules. A prompt's files follow it as `**附件:**` and `- name (mime)`
// lines; an answer's blocks are written in turn: its text as it stands, and each other block under a
// heading of its own, all left out as the chat folds them or the importers of DeepChat's database leave
// them (importers/deepchat/session.ts), but for a tool (`[tool: name]`) and an image (`[image]`):
// `### 🤔 思考过程` and `### 💭 创作思考` (thinking, in a fence), `### 🔧 工具调用: <name>` (with
// `**参数:**` and `**响应:**` fences), `### 🔍 网络搜索` (a count of results), `### 🖼️ 图片`
// (`*[图片内容]*`), `### ❌ 错误` (the error as inline code).
import { filePlaceholder, toolPlaceholder } from "../placeholders.js";

export const DEEPCHAT_USER = /^👤 用户(?:\s|$)/u;
export const DEEPCHAT_ASSISTANT = /^🤖 助手(?:\s|$)/u;
/** The header line that gives the session's id, the same as in its database. */
export const DEEPCHAT_ID_KEY = "conversation id";

const SECTION = /^### (?:🤔 思考过程|💭 创作思考|🔧 工具调用: ?(.*)|🔍 网络搜索|🖼️ 图片|❌ 错误)\s*$/u;
const FENCE = /^```/;
const FILES = "**附件:**";
const FILE = /^- (.*) \(([^()]*)\)$/;

/** A turn's body as the chat shows it: the answer's text, tools and images; the prompt's text and files. */
export function deepchatBody(body: string): string {
  const lines = body.split("\n");
  const out: string[] = [];
  for (let at = 0; at < lines.length; at++) {
    const line = lines[at]!;
    const section = SECTION.exec(line);
    if (section) {
      at = sectionEnd(lines, at);
      if (line.includes("🔧")) paragraph(out, toolPlaceholder(section[1]));
      else if (line.includes("🖼️")) paragraph(out, "[image]");
      continue;
    }
    if (line === FILES) {
      for (; FILE.test(lines[at + 1] ?? ""); at++) {
        const [, name, mime] = FILE.exec(lines[at + 1]!)!;
        paragraph(out, mime!.startsWith("image/") ? "[image]" : filePlaceholder(name));
      }
      continue;
    }
    out.push(line);
  }
  return out.join("\n");
}

/** A placeholder as a paragraph of its own, as the importers of DeepChat's database write it. */
function paragraph(out: string[], text: string): void {
  if (out.length > 0 && out.at(-1)!.trim() !== "") out.push("");
  out.push(text, "");
}

/** The last line of a section: its fences and the lines up to the next text (a blank line after its last fence or line). */
function sectionEnd(lines: readonly string[], start: number): number {
  let at = start + 1;
  while (at < lines.length) {
    const line = lines[at]!;
    if (SECTION.test(line)) return at - 1;
    if (FENCE.test(line)) {
      at += 1;
      while (at < lines.length && !/^```\s*$/.test(lines[at]!)) at++;
      at += 1;
      continue;
    }
    if (
      line.trim() === "" ||
      /^\*\*(?:参数|响应):\*\*$/.test(line) ||
      /^找到 \d+ 个搜索结果$/.test(line) ||
      line === "*[图片内容]*" ||
      /^`.*`$/.test(line)
    ) {
      at += 1;
      continue;
    }
    return at - 1;
  }
  return lines.length - 1;
}
