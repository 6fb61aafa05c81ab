/**
 * The fields both integration routes take, with their bounds. Only the two routes of this group
 * import it.
 */
import { z } from "zod";
import { orgScoped, uuid } from "../../shared/http/route.ts";
import { OutboundUrl } from "../../shared/http/url-field.ts";
import { Environment } from "../../shared/ports/providers/protocol.ts";

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

/** A provider's url: bounded as it is stored (../../shared/http/url-field.ts). */
export const ProviderUrl = OutboundUrl;

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

/**
 * DIAN mode's certificate file, decoded: at most 16 KiB. A CA's file with its chain is 3–10 KiB; the
 * bound also bounds what opening one costs beside its key derivations (parsing and decrypting every
 * certificate in it, on the thread that serves every tenant: bench/pkcs12-timing.ts).
 */
export const MAX_P12_BYTES = 16_384;
/** Its base64, with room for CRLF line breaks every 64 characters (`base64`, `openssl base64`). */
const MAX_P12_BASE64_CHARS = 23_000;

/** Standard base64 (line breaks allowed) of a PKCS#12 file, decoded to its bytes. */
const P12Base64 = z
  .string()
  .min(1, "must not be empty")
  .max(MAX_P12_BASE64_CHARS, `must be at most ${MAX_P12_BASE64_CHARS} characters`)
  .transform((text, ctx) => {
    const compact = text.replace(/[\r\n]/g, "");
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 !== 0) {
      ctx.addIssue({ code: "custom", message: "must be the file in standard base64" });
      return z.NEVER;
    }
    const binary = atob(compact);
    if (binary.length > MAX_P12_BYTES) {
      ctx.addIssue({
        code: "custom",
        message: `decodes to ${binary.length} bytes; a certificate file is at most ${MAX_P12_BYTES} bytes`,
      });
      return z.NEVER;
    }
    return Uint8Array.from(binary, (c) => c.charCodeAt(0));
  });

/** DIAN mode: the company's signing certificate, as its certification authority delivered it. */
export const Certificate = z
  .strictObject({
    p12_base64: P12Base64.meta({
      description:
        "The PKCS#12 file (`.p12`/`.pfx`: the key and its certificate) in standard base64, at most 16 KiB " +
        "decoded. Its algorithms must be ones OpenSSL, Windows or Java write (PBES2 with PBKDF2 and AES or " +
        "3DES, or PKCS#12's 3DES and RC2-40; a SHA-1 or SHA-2 MAC), and its password key-derivation work " +
        "at most 64,000 units (iterations × blocks × each hash's weight: OpenSSL 3's defaults are 12,288).",
    }),
    password: z
      .string()
      .min(1, "must not be empty")
      .max(128, "must be at most 128 characters")
      .meta({ description: "The file's password (never stored: the opened key is sealed instead)." }),
  })
  // the operation takes the file's bytes
  .transform(({ p12_base64, password }) => ({ p12: p12_base64, password }))
  .meta({
    description:
      'DIAN mode only (`settings.provider` "dian"): the certificate that signs (never echoed back). ' +
      "Left out, the saved one is used, at the saved url.",
  });

/** DIAN mode: the software's PIN, fed to the SoftwareSecurityCode and the CUDE (a secret). */
export const SoftwarePin = z
  .string()
  .min(1, "must not be empty")
  .max(100, "must be at most 100 characters")
  .regex(/^[\x21-\x7e]+$/, "must be visible ASCII characters without spaces")
  .meta({
    description:
      'DIAN mode only (`settings.provider` "dian"): the PIN of the software registered with DIAN (never ' +
      "echoed back). Left out, the saved one is used, at the saved url.",
  });

/** The certificate of a DIAN-mode credential, as the answers show it: never its key. */
export const CertificateSummary = z
  .object({
    subject: z.string().meta({ description: "The certificate's subject (RFC 4514)." }),
    nit: z
      .string()
      .nullable()
      .meta({ description: "The NIT DIAN reads from the subject (null: none where DIAN reads it)." }),
    serial: z.string().meta({ description: "The serial number, in decimal." }),
    not_after: z.string().meta({ description: "When it expires (ISO 8601)." }),
  })
  .meta({ description: "DIAN mode: the certificate (its key is never shown)." });

/** What `settings` holds, described once. */
export const SETTINGS_DESCRIPTION =
  "Provider-specific settings: a JSON object of at most 8 KiB and 8 levels. For `adapter-tax`, " +
  '`{ "provider": "dian", "software_id": …, "test_set_id"?: …, "software_provider_nit"?: … }` is DIAN ' +
  "mode: the company transmits to DIAN itself with its `certificate` and `software_pin` (the software " +
  "DIAN registered, the habilitación test set's id in `uat` only, and the NIT of the software's provider " +
  "when it is not the company's).";

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
  "The provider's API key to check (never echoed back); left out, the saved key is used, at the saved url. " +
  "Not in DIAN mode.";
export const URL_DESCRIPTION =
  "The provider's https address; left out, the saved one. Refused when it resolves to a private address. " +
  "In DIAN mode only DIAN's endpoint for the environment, which is also the default.";

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
