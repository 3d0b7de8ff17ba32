import { PLATFORM_PATTERN } from "../../schemas/chat-history.js";
import { AppError } from "../../shared/errors.js";
import type { CoreContext } from "../context.js";

/**
 * A `provider` filter (search, the conversation list): `all`, or a platform the user has
 * conversations from. Anything else is refused naming the ones they have: an empty answer would
 * look like "nothing relevant" to a typo.
 */
export async function checkProvider(ctx: CoreContext, userId: string, provider: string): Promise<void> {
  if (provider === "all") return;
  if (!PLATFORM_PATTERN.test(provider)) throw AppError.invalid("provider", 'must be "all" or a platform id');
  const platforms = await ctx.store.select("platforms", { userId }, { columns: ["id"] });
  if (!platforms.some((row) => row.id === provider)) {
    const known = platforms.map((row) => row.id).sort();
    throw AppError.invalid(
      "provider",
      `no conversations from platform "${provider}"`,
      known.length ? `Use "all" or one of: ${known.join(", ")}.` : "Import some conversations first (`mnemo import`).",
    );
  }
}
