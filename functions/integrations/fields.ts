/**
 * The fields both integration routes take, with their bounds. Only the two routes of this group
 * import it.
 */
import { z } from "zod";
import { orgScoped, uuid } from "../../shared/http/route.ts";
import { Environment } from "../../shared/providers/protocol.ts";

export const MAX_URL_LENGTH = 2048;
/** `settings` as compact JSON, in UTF-8 bytes. */
export const MAX_SETTINGS_BYTES = 8192;
export const MAX_SETTINGS_DEPTH = 8;

export const ProviderServiceName = z.enum(["adapter-tax", "docsgen", "deliver"]);

/** Sent as a bearer token: visible ASCII only, so it cannot break a header. */
export const ApiKey = z
  .string()
  .min(8, "must be at least 8 characters")
  .max(512, "must be at most 512 characters")
  .regex(/^[\x21-\x7e]+$/, "must be visible ASCII characters without spaces");

/**
 * The policy (https, public host, every resolved address public) is applied by the operation; the
 * bound holds for the url as it is stored, normalised (percent-encoding can lengthen it).
 */
export const ProviderUrl = z
  .string()
  .min(1)
  .max(MAX_URL_LENGTH)
  .refine((url) => {
    try {
      return new URL(url).href.length <= MAX_URL_LENGTH;
    } catch {
      return true; // not a url at all: the policy refuses it, naming why
    }
  }, `must be at most ${MAX_URL_LENGTH} characters once normalised`);

/** A JSON object of at most 8 KiB and 8 levels. */
export const Settings = z.record(z.string().max(200), z.unknown()).superRefine((value, ctx) => {
  if (longestKey(value) > 200) {
    ctx.addIssue({ code: "custom", message: "keys must be at most 200 characters, at every level" });
  } else if (depthOf(value, MAX_SETTINGS_DEPTH) > MAX_SETTINGS_DEPTH) {
    ctx.addIssue({ code: "custom", message: `must nest at most ${MAX_SETTINGS_DEPTH} levels deep` });
  } else if (new TextEncoder().encode(JSON.stringify(value)).byteLength > MAX_SETTINGS_BYTES) {
    ctx.addIssue({ code: "custom", message: `must be at most ${MAX_SETTINGS_BYTES} bytes as JSON` });
  }
});

/** Names one credential of a company of the org. */
export const CredentialFields = orgScoped.extend({
  company_id: uuid.meta({ description: "A company of this organization." }),
  service: ProviderServiceName.meta({
    description:
      "Which provider: `adapter-tax` transmits to the tax authority, `docsgen` renders the PDF, " +
      "`deliver` sends e-mail.",
  }),
  environment: Environment.meta({ description: "`uat` (the authority's test set) or `prd` (production)." }),
});

/** The two routes' optional fields, described once. */
export const KEY_DESCRIPTION =
  "The provider's API key to check (never echoed back); left out, the saved key is used, at the saved url.";
export const URL_DESCRIPTION =
  "The provider's https address; left out, the saved one. Refused when it resolves to a private address.";

/** The longest object key anywhere in `value` (walked without recursion). */
function longestKey(value: unknown): number {
  let longest = 0;
  const stack: unknown[] = [value];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    if (item === null || typeof item !== "object") continue;
    if (!Array.isArray(item)) for (const key of Object.keys(item)) longest = Math.max(longest, key.length);
    stack.push(...Object.values(item));
  }
  return longest;
}

/** How deep `value` nests (an object or array is one level), counting no further than past `limit`. */
function depthOf(value: unknown, limit: number): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop() as [unknown, number];
    if (item === null || typeof item !== "object") continue;
    deepest = Math.max(deepest, depth);
    if (depth > limit) return depth;
    for (const child of Object.values(item)) stack.push([child, depth + 1]);
  }
  return deepest;
}
