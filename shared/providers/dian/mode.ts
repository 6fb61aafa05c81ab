/**
 * DIAN mode of the `adapter-tax` credential (DESIGN §10): `settings.provider = "dian"` makes the
 * credential the company's own connection to DIAN's web service — its software registration in
 * `settings`, its certificate and software PIN sealed — instead of a provider speaking our protocol.
 * This file holds what tells the mode and bounds it — the settings, DIAN's endpoints per environment,
 * and which urls the mode may reach — for /integrations, which saves such a credential, and for the
 * provider directory, which uses it.
 */
import { z } from "zod";
import type { ErrorDetail } from "../../kernel/errors.ts";
import { isPrivateTarget } from "../../ports/egress/url-policy.ts";
import type { Environment } from "../../ports/providers/protocol.ts";
import { DIAN_URLS } from "./service.ts";

const ENVIRONMENT_LABEL: Record<Environment, string> = { uat: "habilitación", prd: "production" };

/** DIAN mode's settings, strict: a key it does not know is refused, naming it. */
export const DianSettings = z.strictObject({
  provider: z.literal("dian"),
  /** SoftwareID, as DIAN's software registration shows it (a GUID for software propio). */
  software_id: z
    .string()
    .min(1, "must not be empty")
    .max(100, "must be at most 100 characters")
    .regex(/^[A-Za-z0-9-]+$/, "must be letters, digits and hyphens (DIAN's SoftwareID, a GUID)"),
  /** TestSetId of the habilitación test set: only in `uat`. */
  test_set_id: z.guid({ error: "must be a GUID (DIAN's TestSetId)" }).optional(),
  /** The NIT of whoever provides the software, without check digit; left out, the company's own. */
  software_provider_nit: z
    .string()
    .regex(/^[0-9]{5,15}$/, "must be a NIT of 5 to 15 digits, without the check digit")
    .optional(),
});
export type DianSettings = z.infer<typeof DianSettings>;

/** DIAN mode's settings, or the details of what is wrong with them (fields named `settings.…`). */
export function parseDianSettings(
  settings: Record<string, unknown>,
  environment: Environment,
): { settings: DianSettings } | { problems: ErrorDetail[] } {
  const parsed = DianSettings.safeParse(settings);
  if (!parsed.success) {
    return {
      problems: parsed.error.issues.flatMap((issue) => {
        // an unknown key is named itself, not the object holding it
        const keys = issue.code === "unrecognized_keys" ? issue.keys : [undefined];
        return keys.map((key) => ({
          field: ["settings", ...issue.path.map(String), ...(key ? [key] : [])].join("."),
          message: issue.code === "unrecognized_keys" ? "is not a setting of DIAN mode" : issue.message,
        }));
      }),
    };
  }
  if (parsed.data.test_set_id !== undefined && environment !== "uat") {
    return {
      problems: [
        { field: "settings.test_set_id", message: "is for habilitación (the uat environment) only" },
      ],
    };
  }
  return { settings: parsed.data };
}

/**
 * Why DIAN mode may not reach `url` (already through the URL policy) in `environment`, or null:
 * only the environment's DIAN host over https on its default port — or, when local development
 * allows private URLs, a private target (the local DIAN stand-in).
 */
export function dianUrlProblem(url: URL, environment: Environment, allowPrivate: boolean): string | null {
  const host = new URL(DIAN_URLS[environment]).hostname;
  if (url.protocol === "https:" && url.hostname === host && url.port === "") return null;
  if (allowPrivate && isPrivateTarget(url)) return null;
  return (
    `in DIAN mode the ${environment} credential reaches only DIAN's ${ENVIRONMENT_LABEL[environment]} ` +
    `host, https://${host}/${allowPrivate ? " (or, in local development, a private address)" : ""}`
  );
}
