/** The one error shape every failing answer has (DESIGN §4), for tests that check many answers. */
import { z } from "zod";
import { ERROR_STATUS, type ErrorCode } from "../../shared/kernel/errors.ts";

export const ErrorBody = z.strictObject({
  error: z.strictObject({
    code: z.enum(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]]),
    message: z.string().min(1),
    // a provider's (or DIAN's) own words, beside ours (shared/http/errors.ts)
    provider_message: z.string().min(1).optional(),
    details: z.array(z.strictObject({ field: z.string(), message: z.string() })).optional(),
    request_id: z.string().min(8),
  }),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

/**
 * Why `status`, `headers` and `text` are not a well-formed error answer (undefined when they are):
 * JSON in the error shape, the status its code maps to, `x-request-id` equal to its request id.
 */
export function errorShapeProblem(status: number, headers: Headers, text: string): string | undefined {
  if (!/application\/json/.test(headers.get("content-type") ?? "")) return "not declared as JSON";
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return "body is not JSON";
  }
  const parsed = ErrorBody.safeParse(json);
  if (!parsed.success) return `body is not the error shape: ${parsed.error.message}`;
  const { code, request_id } = parsed.data.error;
  if (ERROR_STATUS[code] !== status) return `code ${code} answered with status ${status}`;
  if (headers.get("x-request-id") !== request_id) return "x-request-id differs from error.request_id";
  return undefined;
}
