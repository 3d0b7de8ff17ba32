import { describe, expect, it } from "vitest";
import { localPath } from "../../src/web/guard.js";
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

describe("where an action goes back to", () => {
  it("is a path on this server, never another site", () => {
    expect(localPath("/memories?bucket=2", "/")).toBe("/memories?bucket=2");
    for (const bad of ["//evil.example/x", "/\\evil.example", "https://evil.example", "memories", undefined, 3]) {
      expect(localPath(bad, "/fallback")).toBe("/fallback");
    }
  });
});
