/**
 * A route the test writes, on the real pipeline: `POST /einvoicing/probe`, built with `operation()`
 * like every route (so it is wrapped the same way: roles, validation, `Idempotency-Key`), whose
 * handler is the test's. For tests of that wrapping, free of any real route's behaviour.
 *
 *   const probe = mountProbe(t, { input, output, errors, handle: async (input) => … });
 *   const response = await probe.post(token, { org_id, … }, { "idempotency-key": key });
 */
import type { z } from "zod";
import { TEST_API_KEY, type TestApp } from "../../devkit/app.ts";
import { createPipeline } from "../../functions/einvoicing/app.ts";
import { DOCUMENT_ROLES, type OperationContext, operation } from "../../shared/http/route.ts";
import type { ErrorCode } from "../../shared/kernel/errors.ts";

export interface Probe {
  /** POSTs `body` (JSON, or a string sent as it is) with the apikey, the token and `headers`. */
  post(token: string, body: unknown, headers?: Record<string, string>): Promise<Response>;
}

export function mountProbe<S extends z.ZodType<{ org_id: string }>, R extends z.ZodType>(
  t: TestApp,
  spec: {
    input: S;
    output: R;
    /** The error codes the handler answers, besides the pipeline's. */
    errors: readonly ErrorCode[];
    handle: (input: z.output<S>, ctx: OperationContext) => Promise<z.input<R>>;
  },
): Probe {
  const pipeline = createPipeline(t.deps);
  pipeline.post("/probe", operation({ summary: "A probe", roles: DOCUMENT_ROLES, ...spec }));
  return {
    post: (token, body, headers = {}) =>
      Promise.resolve(
        pipeline.request("/einvoicing/probe", {
          method: "POST",
          headers: {
            apikey: TEST_API_KEY,
            authorization: `Bearer ${token}`,
            "content-type": "application/json",
            ...headers,
          },
          body: typeof body === "string" ? body : JSON.stringify(body),
        }),
      ),
  };
}
