/**
 * The webhook signature alone (shared/events/signature.ts), against the reference vector of the
 * Standard Webhooks implementations (svix-webhooks, go/webhook_test.go, TestWebhookSign) and against
 * the `standardwebhooks` package that receivers use: one `v1,` signature per secret, space-separated.
 */
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import {
  newWebhookSecret,
  SECRET_PREFIX,
  signatures,
  webhookSecretIdentity,
} from "../../shared/events/signature.ts";

const VECTOR = {
  secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
  id: "msg_p5jXN8AQM9LWM0D4loKWxJek",
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
};

describe("a webhook's signature", () => {
  it("is the reference vector's, for the reference secret and message", async () => {
    const { secret, signature, ...message } = VECTOR;
    expect(await signatures([secret], message)).toBe(signature);
  });

  it("is one `v1,` per secret, the current one first, space-separated; none for no secret", async () => {
    const other = newWebhookSecret();
    const { secret, signature, ...message } = VECTOR;
    const both = await signatures([secret, other], message);
    expect(both.split(" ")).toEqual([signature, await signatures([other], message)]);
    expect(await signatures([], message)).toBe("");
  });

  it("verifies with the standardwebhooks package under each secret, and not once the body changes", async () => {
    const secrets = [newWebhookSecret(), newWebhookSecret()];
    const message = {
      id: "evt_6f1c2a9e4b7d4e0f8a3c5b2d9e1f7a40",
      timestamp: Math.floor(Date.now() / 1000),
      body: '{"a":1}',
    };
    const headers = {
      "webhook-id": message.id,
      "webhook-timestamp": String(message.timestamp),
      "webhook-signature": await signatures(secrets, message),
    };
    for (const secret of secrets) expect(new Webhook(secret).verify(message.body, headers)).toEqual({ a: 1 });
    expect(() => new Webhook(secrets[0] ?? "").verify('{"a":2}', headers)).toThrow();
  });

  it("makes secrets of 32 random bytes behind whsec_, and refuses one without the prefix", async () => {
    const secret = newWebhookSecret();
    expect(secret.startsWith(SECRET_PREFIX)).toBe(true);
    expect(atob(secret.slice(SECRET_PREFIX.length))).toHaveLength(32);
    expect(newWebhookSecret()).not.toBe(secret);
    await expect(signatures(["MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"], VECTOR)).rejects.toThrow(
      "a webhook secret starts with whsec_",
    );
  });

  it("is sealed under its org and endpoint, as no credential is", () => {
    expect(webhookSecretIdentity("org", "hook")).toEqual({
      org_id: "org",
      company_id: "hook",
      service: "webhook",
      environment: "signing",
    });
  });
});
