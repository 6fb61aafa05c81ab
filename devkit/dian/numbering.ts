/**
 * DIAN at the seam of DIAN mode's credential check (shared/providers/dian/numbering-query.ts),
 * until DIAN's SOAP client and the DIAN stand-in (`sandbox/dian/`) are wired behind it: it answers
 * GetNumberingRange the way DIAN's own service does ([D] `WcfDianCustomerServices.svc.cs`: 100 with
 * the ranges in force for the software, else 401/301/302/303, 500 on its own failure; a refused
 * certificate is the client's ProviderUnauthorizedError), from what a test registered, and records
 * every query. Only the verdicts are exercised through it; the SOAP
 * call itself is the web-service client's, tested with it.
 *
 * And the request fields of a DIAN-mode credential, for the tests that send one.
 */
import type {
  DianNumbering,
  NumberingRange,
  NumberingRangeAnswer,
  NumberingRangeQuery,
} from "../../shared/providers/dian/numbering-query.ts";
import { CANARY_SOFTWARE_PIN } from "../canary.ts";
import type { TestCertificates } from "./certificates.ts";

/** The demo software registration (a made-up SoftwareID and habilitación TestSetId). */
export const SOFTWARE_ID = "56f2ae4e-9812-4fad-9255-08fcfcd5ccb0";
export const TEST_SET_ID = "1cc8a4f3-2ff9-45ff-bc33-9f0d2f0bd1b4";

/** A range as DIAN's test set hands one out (Odoo's test data has the same shape). */
export const TEST_SET_RANGE: NumberingRange = {
  resolutionNumber: "18760000001",
  resolutionDate: "2019-01-19",
  prefix: "SETP",
  fromNumber: "990000000",
  toNumber: "995000000",
  validDateFrom: "2019-01-19",
  validDateTo: "2030-01-19",
  technicalKey: "fc8eac422eba16e22ffd8c6f94b3f40a6e38162c",
};

export interface DianNumberingDouble extends DianNumbering {
  /** Every query, in order. */
  readonly queries: NumberingRangeQuery[];
  /** What the next queries for `softwareCode` get (an Error is thrown); unset: 100 and the test set's range. */
  answer(softwareCode: string, answer: NumberingRangeAnswer | Error): void;
}

export function createDianNumberingDouble(): DianNumberingDouble {
  const queries: NumberingRangeQuery[] = [];
  const answers = new Map<string, NumberingRangeAnswer | Error>();
  return {
    queries,
    answer: (softwareCode, answer) => answers.set(softwareCode, answer),
    async getNumberingRange(query) {
      queries.push(query);
      const answer = answers.get(query.softwareCode) ?? {
        operationCode: "100",
        operationDescription: "Acción completada OK.",
        ranges: [TEST_SET_RANGE],
      };
      if (answer instanceof Error) throw answer;
      return answer;
    },
  };
}

/** The body fields of a DIAN-mode credential with `certs` (its password and the canary PIN). */
export function dianFields(
  certs: Pick<TestCertificates, "p12" | "password">,
  settings: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    settings: { provider: "dian", software_id: SOFTWARE_ID, ...settings },
    certificate: { p12_base64: btoa(String.fromCharCode(...certs.p12)), password: certs.password },
    software_pin: CANARY_SOFTWARE_PIN,
  };
}
