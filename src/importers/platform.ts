import { PLATFORM_PATTERN, PLATFORM_RULE } from "../schemas/platform.js";
import { AppError } from "../shared/errors.js";

/** The platform id to record conversations under, checked: invalid input (field `platform`) otherwise. */
export function checkPlatform(platform: string | undefined): string | undefined {
  if (platform === undefined || PLATFORM_PATTERN.test(platform)) return platform;
  throw AppError.invalid("platform", PLATFORM_RULE, "Use a name such as chatgpt-work.");
}
