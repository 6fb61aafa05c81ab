/**
 * The stand-in's control endpoints under `/_sandbox/dian/` (DESIGN §10; local only, no key, like the
 * other sandboxes' `/_sandbox/*`): next-response, reset, release, knobs, requests, test-set.
 */

import { z } from "zod";
import { readCapped } from "../../shared/kernel/bytes.ts";
import { OPERATIONS, type Operation } from "./envelope.ts";
import type { createDianKnobs, DianKnobsPatch } from "./knobs.ts";
import { MAX_MESSAGE_BYTES, tooLarge } from "./limits.ts";
import type { DianTestSet } from "./registry.ts";
import { TestSetRequirement } from "./test-sets.ts";

export interface ControlTarget {
  setNextResponse(operation: Operation, bytes: Uint8Array): void;
  reset(): void;
  releaseBatches(): void;
  knobs: ReturnType<typeof createDianKnobs>;
  requests(): unknown[];
  /** A test set's tally (GET /_sandbox/dian/test-set?id=…). */
  testSetTally(id: string): unknown;
  /** Registers a test set, as DIAN's portal gives one (POST /_sandbox/dian/test-set). */
  addTestSet(testSet: DianTestSet): void;
}

const NewTestSet = z.strictObject({
  id: z.string().regex(/^[0-9A-Za-z-]{1,64}$/),
  softwareId: z.string().min(1).max(100),
  required: TestSetRequirement.optional(),
});

const problem = (code: string, message: string, status: number) =>
  Response.json({ error: { code, message } }, { status });

/** Answers `POST|GET /_sandbox/dian/<name>`. */
export async function handleControl(
  name: string,
  request: Request,
  url: URL,
  target: ControlTarget,
): Promise<Response> {
  if (name === "next-response" && request.method === "POST") {
    const operation = url.searchParams.get("operation") as Operation;
    if (!(OPERATIONS as readonly string[]).includes(operation)) {
      return problem("validation_failed", `operation must be one of ${OPERATIONS.join(", ")}`, 400);
    }
    const { bytes, truncated } = await readCapped(request.body, MAX_MESSAGE_BYTES);
    if (truncated) return tooLarge();
    target.setNextResponse(operation, bytes);
    return Response.json({ ok: true, operation, bytes: bytes.length });
  }
  if (name === "reset" && request.method === "POST") {
    target.reset();
    return Response.json({ ok: true });
  }
  if (name === "release" && request.method === "POST") {
    target.releaseBatches();
    return Response.json({ ok: true });
  }
  if (name === "knobs") {
    if (request.method === "GET") return Response.json(target.knobs.current);
    try {
      return Response.json(target.knobs.set((await request.json()) as DianKnobsPatch));
    } catch (error) {
      return problem("validation_failed", String(error).slice(0, 500), 400);
    }
  }
  if (name === "test-set" && request.method === "POST") {
    const parsed = NewTestSet.safeParse(await request.json().catch(() => null));
    if (!parsed.success) return problem("validation_failed", parsed.error.message.slice(0, 500), 400);
    const { required, ...testSet } = parsed.data;
    target.addTestSet(required ? { ...testSet, required } : testSet);
    return Response.json({ ok: true });
  }
  if (name === "test-set" && request.method === "GET") {
    const id = url.searchParams.get("id") ?? "";
    if (!/^[0-9A-Za-z-]{1,64}$/.test(id))
      return problem("validation_failed", "id must be a test set id", 400);
    return Response.json(target.testSetTally(id));
  }
  if (name === "requests" && request.method === "GET") return Response.json({ requests: target.requests() });
  return problem("not_found", "No such control endpoint.", 404);
}
