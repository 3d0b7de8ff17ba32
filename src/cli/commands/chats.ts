import type { Command } from "commander";
import type { MnemoService } from "../../core/index.js";
import type { ConversationDetail, FlagResponse, ListChatsResponse } from "../../schemas/chat-history.js";
import { idList } from "../id-list.js";
import { counted, type Output } from "../output.js";
import { moveToTrash } from "../move-to-trash.js";
import { confirmOrAbort } from "../prompts.js";
import { action, withService, type Session } from "../session.js";
import { DATE_HELP, dateOptions } from "../date-bound.js";
import { parseCount } from "./memories.js";
import { shortDate } from "../../text/local-time.js";

interface ListOptions {
  page: string;
  pageSize: string;
  provider?: string;
  title?: string;
  from?: string;
  to?: string;
  pinned?: boolean;
  importId?: string;
}

export function registerChats(program: Command): void {
  const chats = program.command("chats").description("imported conversations: list, show, delete, count, pin, exclude, status");

  chats
    .command("list", { isDefault: true })
    .description("list conversations, pinned first, then the most recently updated")
    .option("-p, --page <n>", "page number", "1")
    .option("-s, --page-size <n>", "conversations per page (at most 100)", "25")
    .option("--provider <platform>", "only this platform (chatgpt, claude, gemini, custom, …)")
    .option("-t, --title <text>", "title contains <text>")
    .option("--from <date>", `created on or after ${DATE_HELP}`)
    .option("--to <date>", "created on or before")
    .option("--pinned", "only pinned conversations")
    .option("--import-id <id>", "only conversations of this import record")
    .action(
      action(
        async (session, options: ListOptions) => {
          await withService(
            session,
            async (service) => {
              const result = await service.conversations.list({
                page: parseCount("--page", options.page),
                pageSize: parseCount("--page-size", options.pageSize),
                ...(options.provider ? { provider: options.provider } : {}),
                ...(options.title ? { title: options.title } : {}),
                ...dateOptions(options, session.out.timeZone),
                ...(options.pinned ? { pinnedOnly: true } : {}),
                ...(options.importId ? { importId: options.importId } : {}),
              });
              if (session.out.json) return session.out.data(result);
              const filtered = Boolean(
                options.provider || options.title || options.from || options.to || options.pinned || options.importId,
              );
              printList(session.out, result, filtered);
            },
            { existing: true },
          );
        },
        {
          page: "--page",
          pageSize: "--page-size",
          provider: "--provider",
          title: "--title",
          dateFrom: "--from",
          dateTo: "--to",
          importId: "--import-id",
        },
      ),
    );

  chats
    .command("show")
    .description("one conversation with all its messages")
    .argument("<id>", "conversation id (from `mnemo chats list`)")
    .action(
      action(async (session, id: string) => {
        await withService(
          session,
          async (service) => {
            const detail = await service.conversations.get(id);
            if (session.out.json) return session.out.data(detail);
            printConversation(session.out, detail);
          },
          { existing: true },
        );
      }),
    );

  chats
    .command("delete")
    .description("delete conversations with their chunks and vectors (asks first unless --yes), or move them to the trash with --trash")
    .argument("<ids...>", "conversation ids")
    .option("--trash", "move them to the trash instead, where they are kept 30 days (`mnemo trash restore` puts them back)")
    .action(
      action(async (session, ids: string[], options: { trash?: boolean }) => {
        if (options.trash) return moveToTrash(session, { conversationIds: ids });
        await confirmOrAbort(`Delete ${ids.length === 1 ? "this conversation" : `${ids.length} conversations`}?`, session);
        await withService(session, async (service) => {
          const result = await service.conversations.delete({ ids });
          reportDone(session, "Deleted", ids, result.deleted, result);
        });
      }),
    );

  chats
    .command("count")
    .description("how many conversations are imported (excluded and quota-blocked ones are not counted)")
    .action(
      action(async (session) => {
        await withService(
          session,
          async (service) => {
            const result = await service.conversations.count();
            if (session.out.json) return session.out.data(result);
            session.out.line(String(result.count));
          },
          { existing: true },
        );
      }),
    );

  flagCommand(chats, ["pin", "Pinned"], "pin conversations (listed first)", (service, ids) =>
    service.conversations.pin({ ids, pinned: true }),
  );
  flagCommand(chats, ["unpin", "Unpinned"], "unpin conversations", (service, ids) => service.conversations.pin({ ids, pinned: false }));
  flagCommand(chats, ["exclude", "Excluded"], "keep conversations but leave them out of search, recall and count", (service, ids) =>
    service.conversations.exclude({ ids, excluded: true }),
  );
  flagCommand(chats, ["include", "Included"], "bring excluded conversations back", (service, ids) =>
    service.conversations.exclude({ ids, excluded: false }),
  );

  chats
    .command("status")
    .description("the processing queue: counts by state, and why any failed or were rejected")
    .option("--wait", "process what is queued and wait until the queue is empty")
    .action(
      action(async (session, options: { wait?: boolean }) => {
        await withService(
          session,
          async (service) => {
            const { waitForQueue } = await import("../../core/index.js");
            const status = options.wait ? await waitForQueue(service) : await service.conversations.status();
            if (session.out.json) return session.out.data(status);
            const { counts } = status;
            session.out.line(
              `ready ${counts.ready} · queued ${counts.queued} · processing ${counts.processing} · failed ${counts.failed} · rejected ${counts.rejected} · quota-blocked ${counts.quotaBlocked} · excluded ${counts.excluded}`,
            );
            for (const problem of status.problems) session.out.warn(`${problem.id} ${problem.title}: ${problem.status}: ${problem.reason}`);
          },
          { existing: true, index: Boolean(options.wait) },
        );
      }),
    );
}

/** `[name, done]`: the command and what its report says it did ("Pinned 2 of 2"). */
function flagCommand(
  parent: Command,
  [name, done]: [string, string],
  description: string,
  run: (service: MnemoService, ids: string[]) => Promise<FlagResponse>,
): void {
  parent
    .command(name)
    .description(description)
    .argument("<ids...>", "conversation ids")
    .action(
      action(async (session: Session, ids: string[]) => {
        await withService(session, async (service) => {
          const result = await run(service, ids);
          reportDone(session, done, ids, result.updated, result);
        });
      }),
    );
}

/**
 * What a command did to the ids it was given: a success only when it did it to all of them; the
 * ids it did not find are named, and exit code 1, with --json too.
 */
function reportDone({ out, io }: Session, what: string, ids: string[], done: string[], result: unknown): void {
  const given = [...new Set(ids)];
  const missing = given.filter((id) => !done.includes(id));
  if (missing.length > 0) io.exitCode = 1;
  if (out.json) return out.data(result);
  if (missing.length === 0) return out.success(`${what} ${done.length} of ${given.length}`);
  out.warn(`${what} ${done.length} of ${given.length}. Not found: ${idList(missing)}`);
}

function printList(out: Output, result: ListChatsResponse, filtered: boolean): void {
  if (result.items.length === 0) {
    if (result.total > 0) out.notice(`No conversations on page ${result.page}: there ${pages(result.totalPages)}.`);
    else if (filtered) out.notice("No conversations match these filters.");
    else out.notice("No conversations. Import some with `mnemo import <export>`.");
    return;
  }
  out.table(
    [
      { key: "id", title: "ID" },
      { key: "updated", title: "UPDATED" },
      { key: "platform", title: "PLATFORM" },
      { key: "messages", title: "MSGS", align: "right" },
      { key: "state", title: "STATE" },
      { key: "title", title: "TITLE", flexible: true },
    ],
    result.items.map((item) => ({
      id: item.id,
      updated: shortDate(item.updatedAt, out.timeZone),
      platform: item.platform,
      messages: String(item.messageCount),
      state:
        [
          item.pinned ? "pinned" : "",
          item.excluded ? "excluded" : "",
          item.quotaBlocked ? "blocked" : "",
          item.status === "ready" ? "" : item.status,
        ]
          .filter(Boolean)
          .join(",") || "ready",
      title: item.title,
    })),
  );
  out.notice(`page ${result.page} of ${result.totalPages} · ${counted(result.total, "conversation")}`);
}

function pages(count: number): string {
  return count === 1 ? "is 1 page" : `are ${count} pages`;
}

function printConversation(out: Output, detail: ConversationDetail): void {
  const { style } = out;
  out.line(style.bold(detail.title));
  out.line(
    style.dim(
      `${detail.id} · ${detail.platform} · ${shortDate(detail.createdAt, out.timeZone)} · ${detail.total} messages · ${detail.tokenCount} tokens · ${detail.status} · import ${detail.importId}`,
    ),
  );
  for (const message of detail.messages) {
    out.line();
    const who = message.sender === "human" ? style.cyan("you") : style.magenta("assistant");
    out.line(`${who}${message.timestamp ? style.dim(`  ${shortDate(message.timestamp, out.timeZone)}`) : ""}`);
    out.line(message.text);
  }
}
