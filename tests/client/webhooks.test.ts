/**
 * The client's verifyWebhook (client/webhooks.ts) against the `standardwebhooks` package, Standard
 * Webhooks' reference library, in both directions: what the library signs, verifyWebhook accepts;
 * and on every message (the service's own, a tampered body, an old or future timestamp, a rotated
 * secret's pair of signatures, a missing header, a wrong secret) the two agree.
 */
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { verifyWebhook, type WebhookEvent, WebhookVerificationError } from "../../client/index.ts";
import { DOCUMENT_EVENT_EXAMPLE } from "../../shared/events/schema.ts";
import { newWebhookSecret, signatures } from "../../shared/events/signature.ts";

const message: WebhookEvent = {
  type: DOCUMENT_EVENT_EXAMPLE.type,
  timestamp: DOCUMENT_EVENT_EXAMPLE.occurred_at,
  data: DOCUMENT_EVENT_EXAMPLE,
};
const body = JSON.stringify(message);
const seconds = (date = new Date()) => Math.floor(date.getTime() / 1000);

interface Signed {
  body: string;
  headers: Record<string, string>;
}

/** The library's own signature of `payload`. */
function librarySigned(secret: string, payload = body, at = new Date(), id = "evt_18342"): Signed {
  return {
    body: payload,
    headers: {
      "webhook-id": id,
      "webhook-timestamp": String(seconds(at)),
      "webhook-signature": new Webhook(secret).sign(id, at, payload),
    },
  };
}

/** What the library says of a message: the parsed payload, or its error's message. */
function libraryVerdict(secret: string, signed: Signed): string {
  try {
    new Webhook(secret).verify(signed.body, signed.headers);
    return "accepted";
  } catch (error) {
    return `refused: ${(error as Error).message}`;
  }
}

async function clientVerdict(secret: string | string[], signed: Signed): Promise<string> {
  try {
    await verifyWebhook(secret, signed.body, signed.headers);
    return "accepted";
  } catch (error) {
    if (error instanceof WebhookVerificationError) return `refused: ${error.reason}`;
    throw error;
  }
}

describe("verifyWebhook", () => {
  it("accepts what the standardwebhooks library signs, and returns the typed message", async () => {
    const secret = newWebhookSecret();
    const signed = librarySigned(secret);
    const event = await verifyWebhook(secret, signed.body, new Headers(signed.headers));
    expect(event).toEqual(message);
    expect(event.data.document_id).toBe(DOCUMENT_EVENT_EXAMPLE.document_id);
    // the body's bytes do as well as its text (a framework that hands over a Buffer)
    expect(await verifyWebhook(secret, new TextEncoder().encode(signed.body), signed.headers)).toEqual(
      message,
    );
  });

  it("agrees with the library on every message: the service's, tampered, old, future, rotated, unsigned", async () => {
    const secret = newWebhookSecret();
    const old = newWebhookSecret();
    const now = new Date();
    const minutes = (n: number) => new Date(now.getTime() + n * 60_000);
    const service = async (secrets: string[], at = now, payload = body): Promise<Signed> => ({
      body: payload,
      headers: {
        "webhook-id": "evt_18342",
        "webhook-timestamp": String(seconds(at)),
        "webhook-signature": await signatures(secrets, {
          id: "evt_18342",
          timestamp: seconds(at),
          body: payload,
        }),
      },
    });
    const tampered = librarySigned(secret);
    tampered.body = tampered.body.replace("transmitida", "error");
    const noSignature = librarySigned(secret);
    delete noSignature.headers["webhook-signature"];
    const cases: [string, string, Signed, string][] = [
      ["the service's message", secret, await service([secret]), "accepted"],
      ["a tampered body", secret, tampered, "refused: no_matching_signature"],
      ["signed 4 minutes ago", secret, librarySigned(secret, body, minutes(-4)), "accepted"],
      [
        "signed 6 minutes ago",
        secret,
        librarySigned(secret, body, minutes(-6)),
        "refused: timestamp_too_old",
      ],
      [
        "signed 6 minutes ahead",
        secret,
        librarySigned(secret, body, minutes(6)),
        "refused: timestamp_too_new",
      ],
      ["a rotation's pair, the new secret", secret, await service([secret, old]), "accepted"],
      ["a rotation's pair, the old secret", old, await service([secret, old]), "accepted"],
      ["another secret", newWebhookSecret(), await service([secret, old]), "refused: no_matching_signature"],
      ["no signature header", secret, noSignature, "refused: missing_headers"],
    ];
    for (const [name, key, signed, expected] of cases) {
      const ours = await clientVerdict(key, signed);
      const library = libraryVerdict(key, signed);
      expect({ name, ours, library: library === "accepted" ? "accepted" : "refused" }).toEqual({
        name,
        ours: expected,
        library: expected === "accepted" ? "accepted" : "refused",
      });
    }
  });

  it("takes the secrets a receiver keeps while it rotates, and refuses one it does not know", async () => {
    const [current, previous] = [newWebhookSecret(), newWebhookSecret()];
    const signedWithPrevious = librarySigned(previous);
    expect(await clientVerdict([current, previous], signedWithPrevious)).toBe("accepted");
    expect(await clientVerdict([current], signedWithPrevious)).toBe("refused: no_matching_signature");
    await expect(verifyWebhook("not base64 !", body, {})).rejects.toThrow(TypeError);
  });

  it("bounds what a sender controls: the body's size and the signatures tried", async () => {
    const secret = newWebhookSecret();
    const big = librarySigned(secret, JSON.stringify({ ...message, pad: "x".repeat(70_000) }));
    expect(await clientVerdict(secret, big)).toBe("refused: body_too_large");
    const signed = librarySigned(secret);
    const padded = { ...signed, headers: { ...signed.headers } };
    padded.headers["webhook-signature"] = `${"v1,AAAA ".repeat(10)}${signed.headers["webhook-signature"]}`;
    expect(await clientVerdict(secret, padded)).toBe("refused: no_matching_signature");
  });
});
