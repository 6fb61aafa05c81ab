/**
 * A `url` the service will fetch (a provider credential's, a webhook endpoint's): bounded as it is
 * stored, normalised, since the stored form is what the database's check holds to 2048 characters
 * and percent-encoding can make it several times longer than what was sent. The URL policy (https,
 * a public host, every resolved address public) is applied by the operation, which says why it
 * refuses one.
 */
import { z } from "zod";

export const MAX_URL_LENGTH = 2048;

export const OutboundUrl = z
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
