/**
 * The DIAN TaxAdapter as the tests drive it: a stand-in DIAN seeded with a company's test
 * certificate (../support/dian-stand-in.ts), our client at the network edge to it, the adapter over
 * them, and invoices as the lifecycle prepares them. The adapters sign by the bench's clock, set to
 * a minute after the fixture invoices' issue instant (DIAN wants a document signed on its issue
 * date: FAD09e/CAD09e); a test that sends a document of another day sets it (`clock.set`).
 */
import { createTestClock, type TestClock } from "../../devkit/clock.ts";
import { dianInvoice, signedAtIssue, TEST_RESOLUTION, TEST_SOFTWARE } from "../../devkit/dian/documents.ts";
import type { DianStandIn } from "../../sandbox/dian/index.ts";
import type {
  DocumentLookup,
  SubmitDocumentRequest,
  TaxAdapter,
} from "../../shared/ports/providers/protocol.ts";
import { createDianAdapter } from "../../shared/providers/dian/adapter.ts";
import { openPkcs12, type Signer } from "../../shared/providers/dian/certificate.ts";
import { createDianService } from "../../shared/providers/dian/service.ts";
import { createTestCertificates, SERVICE_URL, seededStandIn } from "./dian-stand-in.ts";

export interface AdapterBench {
  standIn: DianStandIn;
  signer: Signer;
  /** The company's CA, PEM. */
  caPem: string;
  /** The stand-in DIAN's CA, PEM. */
  dianCaPem: string;
  /** What the adapters sign by: a minute after the fixture invoices' issue instant, until set. */
  clock: TestClock;
  adapter(options?: { testSetId?: string; timeoutMs?: number; signer?: Signer; pin?: string }): TaxAdapter;
}

/** A stand-in that knows a fresh company certificate, and adapters over it. */
export async function adapterBench(): Promise<AdapterBench> {
  const certs = createTestCertificates();
  const signer = await openPkcs12(certs.p12, certs.password);
  const standIn = seededStandIn(certs);
  const clock = createTestClock(signedAtIssue(dianInvoice(1)).signingTime);
  return {
    standIn,
    signer,
    caPem: certs.caPem,
    dianCaPem: await standIn.dianCaPem(),
    clock,
    adapter(options = {}) {
      const own = options.signer ?? signer;
      return createDianAdapter({
        service: createDianService({
          url: SERVICE_URL,
          signer: own,
          fetch: standIn.fetch,
          timeoutMs: options.timeoutMs ?? 10_000,
        }),
        signer: own,
        software: { id: TEST_SOFTWARE.id, pin: options.pin ?? TEST_SOFTWARE.pin },
        testSetId: options.testSetId ?? null,
        batchPollMs: 0,
        now: () => clock.now(),
      });
    },
  };
}

/** An invoice as the lifecycle prepares it: the protocol's request with its numbering resolution. */
export function invoice(change?: (doc: SubmitDocumentRequest) => void): SubmitDocumentRequest {
  const { document } = dianInvoice(3, change);
  return {
    ...document,
    numbering: {
      resolution_number: TEST_RESOLUTION.number,
      start_date: TEST_RESOLUTION.start_date,
      end_date: TEST_RESOLUTION.end_date,
      prefix: TEST_RESOLUTION.prefix,
      from: TEST_RESOLUTION.from,
      to: TEST_RESOLUTION.to,
    },
  };
}

/** The lookup the lifecycle hands the adapter for `request`. */
export const lookupOf =
  (request: SubmitDocumentRequest, providerReference: string | null = null): DocumentLookup =>
  async () => ({ request, providerReference });
