import type { Command } from "commander";
import { confirmOrAbort } from "../prompts.js";
import { action, withApp, withService } from "../session.js";

export function registerUsers(program: Command): void {
  program
    .command("token")
    .description("whether you have an API token; --rotate prints a new one (once) and revokes the old")
    .option("--rotate", "make a new token; the old one stops working (with --remote: the token you pass)")
    .action(
      action(async (session, options: { rotate?: boolean }) => {
        if (options.rotate && session.options.remote) {
          // The server knows the caller by the token, and replaces that one (POST /api/token/rotate).
          return withService(session, async (service) => {
            const result = await service.token.rotate();
            if (session.out.json) return session.out.data(result);
            session.out.line(result.token);
            session.out.notice("Shown once. The old token no longer works.");
          });
        }
        await withApp(session, async (app) => {
          const user = await app.users.resolve(session.options.user ?? app.config.user);
          if (!options.rotate) {
            const result = { user: user.name, hasToken: user.hasToken, tokenFile: app.config.paths.tokenFile };
            if (session.out.json) return session.out.data(result);
            session.out.line(
              user.hasToken
                ? `${user.name} has a token (only its hash is stored).`
                : `${user.name} has no token yet: \`mnemo serve\` or \`mnemo token --rotate\` makes one.`,
            );
            return;
          }
          // The default user's also goes to the token file, where local plugins look for it.
          const token = await app.users.rotateToken(user.name);
          if (session.out.json) return session.out.data({ user: user.name, token });
          session.out.line(token);
          session.out.notice("Shown once. The old token no longer works.");
        });
      }),
    );

  const users = program.command("users").description("the users of this store, each with their own token and data");
  users
    .command("list", { isDefault: true })
    .description("list users")
    .action(
      action(async (session) => {
        await withApp(session, async (app) => {
          const list = await app.users.list();
          if (session.out.json) return session.out.data(list);
          session.out.table(
            [
              { key: "name", title: "NAME" },
              { key: "token", title: "TOKEN" },
              { key: "createdAt", title: "CREATED" },
            ],
            list.map((u) => ({ name: u.name, token: u.hasToken ? "yes" : "no", createdAt: u.createdAt.slice(0, 10) })),
          );
        });
      }),
    );
  users
    .command("add")
    .description("add a user and print their API token (once)")
    .argument("<name>", "letters, digits, dots, hyphens, underscores")
    .action(
      action(async (session, name: string) => {
        await withApp(session, async (app) => {
          await app.users.add(name);
          const token = await app.users.rotateToken(name);
          if (session.out.json) return session.out.data({ user: name, token });
          session.out.line(token);
          session.out.notice(`User ${name} added. The token is shown once.`);
        });
      }),
    );
  users
    .command("remove")
    .description("remove a user and everything they stored (asks first unless --yes); not the default user")
    .argument("<name>", "user name")
    .action(
      action(async (session, name: string) => {
        const { checkRemovable } = await import("../../core/index.js");
        await checkRemovable(name); // before asking: the answer could not change it
        await confirmOrAbort(`Remove user ${name} and all their memories and conversations?`, session);
        await withApp(session, async (app) => {
          await app.users.remove(name);
          if (session.out.json) return session.out.data({ removed: name });
          session.out.success(`Removed ${name}`);
        });
      }),
    );
}
