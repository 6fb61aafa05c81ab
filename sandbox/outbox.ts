/**
 * The sandbox deliver's outbox on disk: one folder per processed message,
 * `<outboxDir>/<time>-<reference>/`, holding `message.json` (recipients, subject, text, outcome,
 * attachment list) and each attachment as a file, so a developer can open what was "sent" — for a
 * delivery, the ZIP with the AttachedDocument XML and the PDF, whose files message.json lists.
 * Sandbox only (node:fs), never shared code.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { DeliveryOutcome, SendMessageRequest } from "../shared/ports/providers/deliver.ts";

export interface OutboxMessage {
  request: SendMessageRequest;
  /** The decoded attachments, in the request's order. */
  contents: Uint8Array[];
  outcome: DeliveryOutcome;
  idempotencyKey: string;
  receivedAt: Date;
}

/** Writes the message; returns its folder. */
export async function writeOutbox(outboxDir: string, message: OutboxMessage): Promise<string> {
  const { request, outcome } = message;
  const stamp = message.receivedAt.toISOString().replace(/[:.]/g, "-");
  const folder = join(outboxDir, `${stamp}-${request.reference}`);
  await mkdir(folder, { recursive: true });
  const taken = new Set(["message.json"]);
  const attachments = [];
  for (const [i, attachment] of request.attachments.entries()) {
    const file = uniqueName(taken, portable(attachment.filename));
    const content = message.contents[i] ?? new Uint8Array(0);
    await writeFile(join(folder, file), content);
    attachments.push({
      filename: attachment.filename,
      content_type: attachment.content_type,
      size: content.byteLength,
      file,
      ...(attachment.content_type === "application/zip" ? { zip_entries: await zipEntries(content) } : {}),
    });
  }
  const record = {
    reference: request.reference,
    provider_reference: outcome.provider_reference,
    status: outcome.status,
    outcome_message: outcome.message,
    idempotency_key: message.idempotencyKey,
    received_at: message.receivedAt.toISOString(),
    to: request.to,
    subject: request.subject,
    text: request.text,
    attachments,
  };
  await writeFile(join(folder, "message.json"), `${JSON.stringify(record, null, 2)}\n`);
  return folder;
}

/** The files inside a ZIP, with their sizes; null when it cannot be read (it is kept as it came). */
async function zipEntries(zip: Uint8Array): Promise<{ name: string; size: number }[] | null> {
  try {
    const { unzipSync } = await import("fflate");
    return Object.entries(unzipSync(zip)).map(([name, bytes]) => ({ name, size: bytes.byteLength }));
  } catch {
    return null;
  }
}

/** Characters some file systems refuse become "_" (the protocol already bars / \ and controls). */
function portable(filename: string): string {
  return filename.replace(/[<>:"|?*]/g, "_");
}

function uniqueName(taken: Set<string>, name: string): string {
  let candidate = name;
  for (let n = 2; taken.has(candidate); n++) candidate = `${n}-${name}`;
  taken.add(candidate);
  return candidate;
}
