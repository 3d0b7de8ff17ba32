import { describe, expect, it } from "vitest";
import { localPath } from "../../src/web/guard.js";
import { highlightSegments } from "../../src/text/highlight.js";
import { markdown } from "../../src/web/markdown.js";

describe("the web app's markdown", () => {
  it("renders markdown and code, and shows any HTML in a message as text", () => {
    const html = String(
      markdown('**bold** and `code`\n\n```js\nconst a = "<b>";\n```\n\n<img src=x onerror="alert(1)"><script>alert(1)</script>'),
    );
    expect(html).toContain("<strong>bold</strong>");
    expect(html).toContain("<code>code</code>");
    expect(html).toContain("const a = &quot;&lt;b&gt;&quot;;");
    expect(html).toContain('<pre tabindex="0"><code class="language-js">'); // the keyboard can scroll a wide block
    expect(html).not.toMatch(/<img|<script/);
    expect(html).toContain("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&lt;script&gt;");
  });

  it("makes no javascript: link and loads no image; links do not pass the page on", () => {
    const html = String(markdown("[a](javascript:alert(1)) ![b](http://tracker.example/p.png) [c](https://example.com)"));
    expect(html).not.toContain('href="javascript');
    expect(html).not.toContain("<img");
    expect(html).toContain('<a href="https://example.com" rel="noopener noreferrer nofollow">c</a>');
  });
});

describe("markdown in search hits and recall", () => {
  it("marks the query's words in a hit's text, not in its code, and renders its emphasis and tables", () => {
    const html = String(
      markdown("Take **tram 28** up.\n\n| Line | Stop |\n| --- | --- |\n| 28 | Graça |\n\n`tram <28>`", {
        mark: highlightSegments("tram"),
      }),
    );
    expect(html).toContain("<strong><mark>tram</mark> 28</strong>");
    expect(html).toContain('<table tabindex="0">');
    expect(html).toContain("<td>Graça</td>");
    expect(html).toContain("<code>tram &lt;28&gt;</code>");
    expect(html).not.toContain("**");
  });

  it("makes each [n] of a summary a link to its source, with the source's title escaped; an unknown [n] stays text", () => {
    const sources = ["/conversations/c1?at=m1#hit", "/conversations/c2?at=m2#hit"];
    const cite = (n: number) => (sources[n - 1] ? { href: sources[n - 1]!, label: `Source ${n}: "<b>"` } : undefined);
    const html = String(markdown("- **Tram 28** goes up [1].\n- Both say so [1, 2]; not [9]. `[2]` in code.", { cite }));
    expect(html).toContain('<a class="cite" href="/conversations/c1?at=m1#hit" aria-label="Source 1: &quot;&lt;b&gt;&quot;">[1]</a>');
    expect(html).toContain('[1]</a><a class="cite" href="/conversations/c2?at=m2#hit"');
    expect(html).toContain("not [9].");
    expect(html).toContain("<code>[2]</code>");
    expect(html).toContain('<li dir="auto"><strong>Tram 28</strong>');
  });
});

describe("where an action goes back to", () => {
  it("is a path on this server, never another site", () => {
    expect(localPath("/memories?bucket=2", "/")).toBe("/memories?bucket=2");
    expect(localPath("/conversations/c1?at=m#hit", "/")).toBe("/conversations/c1?at=m#hit");
    for (const bad of [
      "//evil.example/x",
      "/\\evil.example",
      "\\/evil.example",
      "/\t/evil.example",
      "/\n/evil.example",
      "/.//evil.example",
      "/%2e//evil.example",
      "/a/..//evil.example",
      "https://evil.example",
      "javascript:alert(1)",
      "/x\r\nSet-Cookie: a=b",
      "memories",
      undefined,
      3,
    ]) {
      expect(localPath(bad, "/fallback")).toBe("/fallback");
    }
  });
});
