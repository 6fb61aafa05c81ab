/**
 * The sandbox docsgen provider (docs/sandbox.md#docsgen): POST /render answers a real PDF made by
 * ./docsgen-pdf.ts, deterministic for the same request. Keys, limits, latency and faults are the
 * adapter-tax sandbox's (./common.ts); `failNext` rules apply to renders unless they say `on`.
 */
import { z } from "zod";
import { PDF_CONTENT_TYPE, RenderRequest } from "../shared/ports/providers/docsgen.ts";
import { createSandboxBase, errorBody, refuse, type SandboxOptions, type SandboxService } from "./common.ts";
import { renderSandboxPdf, SANDBOX_TEMPLATES } from "./docsgen-pdf.ts";
import type { FaultKind } from "./faults.ts";

export { DOCSGEN_SANDBOX_TITLE, SANDBOX_TEMPLATES } from "./docsgen-pdf.ts";

/** One PDF the sandbox rendered (a refused or invalid request is not one). */
export interface RenderLogEntry {
  received_at: string;
  reference: string;
  kind: RenderRequest["kind"];
  number: string;
  template: string;
  status: string;
  /** Size of the PDF. */
  bytes: number;
  injected?: FaultKind;
}

export interface SandboxDocsgen extends SandboxService {
  /** Each render, in order (copies). */
  readonly renders: readonly RenderLogEntry[];
}

export function createSandboxDocsgen(options: SandboxOptions = {}): SandboxDocsgen {
  const renders: RenderLogEntry[] = [];
  const base = createSandboxBase(options, {
    primary: "render",
    logsPath: "/_sandbox/renders",
    logs: () => ({ renders }),
    onReset: () => {
      renders.length = 0;
    },
  });
  const { app, faults, withFault, now } = base;

  app.post("/render", async (c) => {
    const json: unknown = await c.req.json().catch(() => undefined);
    const reference = (json as { reference?: unknown } | undefined)?.reference;
    const fault = faults.draw("render", typeof reference === "string" ? reference : undefined);
    if (fault === "error" || fault === "rate_limited") return refuse(c, fault);
    if (json === undefined) return c.json(errorBody("invalid_json", "The body is not JSON."), 400);
    const parsed = RenderRequest.safeParse(json);
    if (!parsed.success) return c.json(errorBody("validation_failed", z.prettifyError(parsed.error)), 400);
    const request = parsed.data;
    const template = request.template ?? "default";
    if (!(SANDBOX_TEMPLATES as readonly string[]).includes(template)) {
      const message = `No template named ${template}; the sandbox has ${SANDBOX_TEMPLATES.join(", ")}.`;
      return c.json(errorBody("template_not_found", message), 422);
    }
    const pdf = await renderSandboxPdf(request);
    renders.push({
      received_at: now().toISOString(),
      reference: request.reference,
      kind: request.kind,
      number: request.document.number,
      template,
      status: request.document.status,
      bytes: pdf.byteLength,
      ...(fault ? { injected: fault } : {}),
    });
    return withFault(
      c,
      fault,
      () => c.body(new Uint8Array(pdf), 200, { "content-type": PDF_CONTENT_TYPE }),
      () => c.body("<html>upstream garbled</html>", 200, { "content-type": PDF_CONTENT_TYPE }),
    );
  });

  return {
    fetch: base.service.fetch,
    setKnobs: base.service.setKnobs,
    reset: base.service.reset,
    get knobs() {
      return faults.knobs;
    },
    get renders() {
      return renders.map((entry) => ({ ...entry }));
    },
  };
}
