import {
  type DeliveryOutcome,
  fromBase64,
  MESSAGE_NOT_FOUND,
  SendMessageRequest,
} from "../shared/ports/providers/deliver.ts";
import { REPLAYED_HEADER } from "../shared/ports/providers/protocol.ts";
import {
  createSandboxBase,
  errorBody,
  fingerprint,
  type ReceivedLogEntry,
  readIdempotentPost,
  refuse,
  type SandboxOptions,
  type SandboxService,
} from "./common.ts";
import { writeOutbox } from "./outbox.ts";

/** Every message with a recipient at this domain (any case) is rejected as a bounce. */
export const BOUNCE_DOMAIN = "rebota.test";

/** One message the sandbox took into processing (a replay, duplicate or refused request is not one). */
export interface MessageLogEntry {
  provider_reference: string;
  reference: string;
  idempotency_key: string;
  to: string[];
  subject: string;
  attachments: { filename: string; content_type: string; size: number }[];
  status: DeliveryOutcome["status"];
  received_at: string;
  /** The message's folder, when the sandbox writes an outbox. */
  outbox_path?: string;
}

export interface MessageQueryLogEntry {
  reference: string;
  found: boolean;
  received_at: string;
}

export interface SandboxDeliverOptions extends SandboxOptions {
  /** When set, each processed message is written to `<outboxDir>/<time>-<reference>/`. */
  outboxDir?: string;
}

export interface SandboxDeliver extends SandboxService {
  /** Each message taken into processing, in order (copies). */
  readonly messages: readonly MessageLogEntry[];
  /** Each GET /messages/{reference} that reached the handler, and whether it was known (copies). */
  readonly queries: readonly MessageQueryLogEntry[];
  /** Each POST /messages received, including replays and refused ones (copies). */
  readonly received: readonly ReceivedLogEntry[];
  /** The text and attachment bytes of a processed message, by our reference. */
  content(reference: string): { text: string; attachments: Map<string, Uint8Array> } | undefined;
}

export function createSandboxDeliver(options: SandboxDeliverOptions = {}): SandboxDeliver {
  const messages: MessageLogEntry[] = [];
  const queries: MessageQueryLogEntry[] = [];
  const byKey = new Map<string, { fingerprint: string; outcome: DeliveryOutcome }>();
  const byReference = new Map<string, DeliveryOutcome>();
  const contents = new Map<string, { text: string; attachments: Map<string, Uint8Array> }>();
  const base = createSandboxBase(options, {
    primary: "send",
    loggedPost: "/messages",
    logsPath: "/_sandbox/messages",
    logs: () => ({ messages, queries, received: base.received }),
    onReset: () => {
      messages.length = 0;
      queries.length = 0;
      byKey.clear();
      byReference.clear();
      contents.clear();
    },
  });
  const { app, faults, withFault, now } = base;

  app.post("/messages", async (c) => {
    const intake = await readIdempotentPost(c, faults, "send", SendMessageRequest);
    if (intake.response) return intake.response;
    const { request, key, log, fault } = intake;

    const print = await fingerprint(request);
    const previous = byKey.get(key);
    if (previous) {
      if (previous.fingerprint !== print) {
        log.result = "conflict";
        const message = "This idempotency key was already used with a different message.";
        return c.json(errorBody("idempotency_conflict", message), 409);
      }
      log.result = "replayed";
      return withFault(c, fault, () => c.json(previous.outcome, 200, { [REPLAYED_HEADER]: "true" }));
    }
    const current = byReference.get(request.reference);
    if (current?.status === "sent") {
      byKey.set(key, { fingerprint: print, outcome: current });
      log.result = "duplicate";
      return withFault(c, fault, () => c.json(current, 200));
    }

    const receivedAt = now();
    const bounced = request.to.filter((to) => to.toLowerCase().endsWith(`@${BOUNCE_DOMAIN}`));
    const outcome: DeliveryOutcome = {
      reference: request.reference,
      provider_reference: `sbx_msg_${crypto.randomUUID()}`,
      status: bounced.length ? "rejected" : "sent",
      message: bounced.length
        ? `El mensaje no fue enviado: el buzón de ${bounced.join(", ")} no existe (rebote permanente).`
        : `Mensaje enviado a ${request.to.join(", ")}.`,
    };
    const decoded = request.attachments.map((a) => fromBase64(a.content_base64));
    let outboxPath: string | undefined;
    if (options.outboxDir) {
      const message = { request, contents: decoded, outcome, idempotencyKey: key, receivedAt };
      try {
        outboxPath = await writeOutbox(options.outboxDir, message);
      } catch (error) {
        log.result = "unavailable"; // nothing recorded: the answer is a 500
        throw error;
      }
    }
    byKey.set(key, { fingerprint: print, outcome });
    byReference.set(request.reference, outcome);
    contents.set(request.reference, {
      text: request.text,
      attachments: new Map(request.attachments.map((a, i) => [a.filename, decoded[i] ?? new Uint8Array(0)])),
    });
    messages.push({
      provider_reference: outcome.provider_reference,
      reference: request.reference,
      idempotency_key: key,
      to: request.to,
      subject: request.subject,
      attachments: request.attachments.map((a, i) => ({
        filename: a.filename,
        content_type: a.content_type,
        size: decoded[i]?.byteLength ?? 0,
      })),
      status: outcome.status,
      received_at: receivedAt.toISOString(),
      ...(outboxPath ? { outbox_path: outboxPath } : {}),
    });
    log.result = "processed";
    return withFault(c, fault, () => c.json(outcome, 201));
  });

  // What became of the message sent under a reference: `sent` or `rejected`, or never received.
  app.get("/messages/:reference", async (c) => {
    const reference = c.req.param("reference");
    const fault = faults.draw("query", reference);
    if (fault === "error" || fault === "rate_limited") return refuse(c, fault);
    const outcome = byReference.get(reference);
    queries.push({ reference, found: outcome !== undefined, received_at: now().toISOString() });
    return withFault(c, fault, () =>
      outcome
        ? c.json(outcome, 200)
        : c.json(errorBody(MESSAGE_NOT_FOUND, `No message with reference ${reference}.`), 404),
    );
  });

  return {
    fetch: base.service.fetch,
    setKnobs: base.service.setKnobs,
    reset: base.service.reset,
    get knobs() {
      return faults.knobs;
    },
    get messages() {
      return messages.map((entry) => ({ ...entry, to: [...entry.to], attachments: [...entry.attachments] }));
    },
    get received() {
      return base.received.map((entry) => ({ ...entry }));
    },
    get queries() {
      return queries.map((entry) => ({ ...entry }));
    },
    content: (reference) => contents.get(reference),
  };
}
