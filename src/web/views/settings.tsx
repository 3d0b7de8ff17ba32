import type { StoreInfo } from "../../schemas/account.js";
import type { Snippet } from "../mcp-snippets.js";
import { byteSize, plural } from "../format.js";
import { BackupSection } from "./backup.js";
import { ActionForm, Layout, type PageContext } from "./layout.js";

export function SettingsPage(props: { ctx: PageContext; info: StoreInfo; snippets: Snippet[]; newToken: string | undefined }) {
  const { info, ctx } = props;
  const s = info.statistics;
  return (
    <Layout title="Settings" page="settings" ctx={ctx}>
      <h1>Settings</h1>
      <h2 id="integrations">Integrations</h2>
      <section class="panel" aria-labelledby="token-heading" id="token">
        <h3 id="token-heading">API token</h3>
        {props.newToken ? (
          <>
            <p>
              <strong>Your new token, shown this once.</strong> Copy it now: only its hash is kept. The old token no longer works.
            </p>
            <div class="field">
              <label for="new-token">New API token</label>
              <input id="new-token" class="token-box" type="text" readonly value={props.newToken} data-copy-source />
            </div>
            <p>
              <button type="button" class="secondary" data-copy="new-token">
                Copy token
              </button>
            </p>
          </>
        ) : (
          <p>
            Plugins and scripts use your token as <code>Authorization: Bearer …</code>. It is stored hashed and cannot be shown again
            {info.user === "default" ? <> (the server's token file, {info.dataDir}/token, holds it)</> : null}; if it leaked, make a new
            one.
          </p>
        )}
        <ActionForm ctx={ctx} action="/settings/token" back="/settings">
          <button type="submit" class="secondary">
            Rotate token
          </button>
        </ActionForm>
      </section>
      <section aria-labelledby="snippets-heading">
        <h3 id="snippets-heading">MCP and editors</h3>
        <p class="hint">
          {props.newToken ? "With your new token filled in." : "Replace <your token> with your token (rotate it to see a new one here)."}
        </p>
        {/* Folded, each under its editor's name: all of them open made a page of a dozen screens on a phone. */}
        {props.snippets.map((snippet, i) => (
          <details class="snippet">
            <summary>
              <h4 id={`snippet-${i}`}>{snippet.client}</h4>
            </summary>
            <p class="hint">
              {snippet.where}
              {snippet.docs ? (
                <>
                  {" "}
                  <a href={snippet.docs} rel="noreferrer">
                    {snippet.client}'s documentation
                  </a>
                </>
              ) : null}
            </p>
            {/* Focusable: a snippet wider than a phone scrolls, and the keyboard must be able to scroll it. */}
            <pre id={`snippet-text-${i}`} tabindex={0}>
              <code>{snippet.text}</code>
            </pre>
            <button type="button" class="secondary" data-copy={`snippet-text-${i}`}>
              Copy
            </button>
          </details>
        ))}
      </section>
      <h2>This store</h2>
      <dl class="facts panel">
        <dt>Signed in as</dt>
        <dd>{info.user}</dd>
        <dt>mnemo</dt>
        <dd>{info.version}</dd>
        <dt>Embedder</dt>
        <dd>
          {info.embedder.spec} ({info.embedder.id === info.embedder.spec ? "" : `${info.embedder.id}, `}
          {info.embedder.dims} dimensions)
        </dd>
        <dt>Chunks</dt>
        <dd>
          up to {info.chunks.tokens} tokens of a conversation
          {info.chunks.note ? <p class="hint">{info.chunks.note}</p> : null}
        </dd>
        <dt>Reranker</dt>
        <dd>{info.reranker}</dd>
        <dt>Synthesizer</dt>
        <dd>{info.synthesizer}</dd>
        <dt>Data dir</dt>
        <dd>
          <code>{info.dataDir}</code>
        </dd>
        <dt>Database</dt>
        <dd>
          <code>{info.storeUri}</code>
        </dd>
        <dt>On disk</dt>
        <dd>{s.diskBytes === null ? "object storage" : `${byteSize(s.diskBytes)} (every user's data)`}</dd>
        <dt>Caches in memory</dt>
        {/* 512 MiB of indexes and 64 MiB of metadata (store/store.ts), in the decimal units byteSize shows. */}
        <dd>{byteSize(info.cacheBytes)} of indexes and metadata (at most 604 MB)</dd>
      </dl>
      <h2>Your data</h2>
      <dl class="facts panel">
        <dt>Memories</dt>
        <dd>
          {s.memories.toLocaleString("en-US")} ({plural(s.imageMemories, "image")}) in {plural(s.buckets, "bucket")}
        </dd>
        <dt>Conversations</dt>
        <dd>
          {s.conversations.toLocaleString("en-US")}: {s.byStatus.ready.toLocaleString("en-US")} ready,{" "}
          {s.byStatus.queued + s.byStatus.processing} to process, {s.byStatus.failed} failed, {s.byStatus.rejected} rejected; {s.excluded}{" "}
          excluded, {s.pinned} pinned
        </dd>
        <dt>Messages</dt>
        <dd>
          {s.messages.toLocaleString("en-US")} ({s.tokens.toLocaleString("en-US")} tokens)
        </dd>
        <dt>Platforms</dt>
        <dd>{s.platforms.length === 0 ? "none yet" : s.platforms.map((p) => `${p.displayName ?? p.id}: ${p.conversations}`).join(", ")}</dd>
      </dl>
      <BackupSection />
    </Layout>
  );
}
