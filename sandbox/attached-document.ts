/**
 * The AttachedDocument the sandbox serves for a document it accepted (GET
 * /documents/{reference}/attached-document), built as DIAN mode builds it, so local XML is the XML
 * a real DIAN would accept: the document by the shared DIAN builder (`buildSignedDocument`, signed
 * with the sandbox's issuer certificate), DIAN's ApplicationResponse by the stand-in
 * (./application-response.ts, signed with the sandbox's "DIAN" certificate), the container by the
 * shared builder (`buildAttachedDocument`, signed with the issuer certificate). docs/sandbox.md
 * says what is the sandbox's own: the certificates, the software, and the numbering resolution of
 * an invoice that carries none.
 */

import { colombianTime } from "../shared/co/time.ts";
import type { DocumentOutcome, SubmitDocumentRequest } from "../shared/ports/providers/protocol.ts";
import { buildAttachedDocument } from "../shared/providers/dian/attached-document.ts";
import { buildSignedDocument } from "../shared/providers/dian/document.ts";
import type { DianDocumentInput, NumberingResolution } from "../shared/providers/dian/input.ts";
import { sandboxApplicationResponse } from "./application-response.ts";
import type { SandboxSigners } from "./signers.ts";

/**
 * The software the sandbox's documents name (software propio: the issuer provides it). An invoice's
 * request carries no PIN, so its SoftwareSecurityCode takes this one; a credit note's takes the
 * note's `issuer.software_pin`, the PIN its CUDE is computed with.
 */
export const SANDBOX_SOFTWARE = { id: "5a4d1a2b-5a4d-4b0c-8d1e-5a4d1a2b0000", pin: "75315" } as const;

/**
 * The resolution of an invoice whose request has no `numbering`: DIAN habilitación's test
 * resolution number, the invoice's own prefix (up to its last letter, and any digits beyond the
 * fifteen a consecutive may have), the consecutives 1 to 999999999999999, and a period from 2019-01-19 to 2030-01-19
 * widened to the issue date: a range that contains the number, whatever it is.
 */
export function defaultResolution(doc: SubmitDocumentRequest): NumberingResolution {
  const lastLetter = doc.number.search(/[A-Z][0-9]*$/);
  const prefixLength = Math.max(lastLetter + 1, doc.number.length - 15, 0);
  const consecutive = BigInt(doc.number.slice(prefixLength));
  return {
    number: "18760000001",
    start_date: doc.issue_date < "2019-01-19" ? doc.issue_date : "2019-01-19",
    end_date: doc.issue_date > "2030-01-19" ? doc.issue_date : "2030-01-19",
    prefix: doc.number.slice(0, prefixLength),
    from: consecutive === 0n ? "0" : "1",
    to: "999999999999999",
  };
}

/** The DIAN builder's input for a document the sandbox accepted. */
export function sandboxDianInput(doc: SubmitDocumentRequest): DianDocumentInput {
  const software = { id: SANDBOX_SOFTWARE.id, pin: doc.issuer.software_pin ?? SANDBOX_SOFTWARE.pin };
  if (doc.kind !== "invoice") return { document: doc, dian: { software } };
  const numbering = doc.numbering;
  const resolution = numbering
    ? {
        number: numbering.resolution_number,
        start_date: numbering.start_date,
        end_date: numbering.end_date,
        prefix: numbering.prefix,
        from: numbering.from,
        to: numbering.to,
      }
    : defaultResolution(doc);
  return { document: doc, dian: { software, resolution } };
}

/**
 * The signed AttachedDocument of `doc`, accepted with `outcome`. Deterministic: the same document,
 * acceptance and signers give the same bytes. The sandbox, like a provider that signs for its
 * issuers, signs the document as it validates it: its SigningTime is the acceptance's instant in
 * Colombia's offset, never a copy of the issue date (DESIGN §12). Throws when the DIAN builder's
 * CUFE/CUDE is not the one the sandbox answered (a defect: both compute it from the same fields).
 */
export async function sandboxAttachedDocument(
  doc: SubmitDocumentRequest,
  outcome: DocumentOutcome,
  signers: SandboxSigners,
): Promise<Uint8Array<ArrayBuffer>> {
  if (outcome.status !== "accepted" || !outcome.validated_at) {
    throw new TypeError("an AttachedDocument wraps only an accepted document");
  }
  const signed = await buildSignedDocument(sandboxDianInput(doc), signers.issuer, {
    signingTime: colombianTime(new Date(outcome.validated_at)),
  });
  if (signed.authorityCode !== outcome.authority_code) {
    throw new Error(`the DIAN builder's CUFE/CUDE of ${doc.number} is not the one the sandbox answered`);
  }
  const applicationResponse = await sandboxApplicationResponse(doc, outcome, signers.dian);
  return buildAttachedDocument(
    {
      document: signed.xml,
      applicationResponse,
      facts: { ...doc, authority_code: signed.authorityCode },
    },
    signers.issuer,
  );
}
