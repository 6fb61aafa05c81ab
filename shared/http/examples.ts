/**
 * The ids the reference's examples share, so that one example's answer reads as the next one's
 * request (the demo organization and company of the seed; the documents are made up).
 */
export const EXAMPLE = {
  org_id: "11111111-1111-4111-8111-111111111111",
  company_id: "c1111111-1111-4111-8111-111111111111",
  invoice_id: "5b0e7f4c-2d3a-4f8e-9c61-7a2b9d0e1f35",
  second_invoice_id: "9a4d1c2e-6f70-4b83-a5d9-1e2f3c4b5a60",
  line_id: "e2c4a6b8-0d1f-4a3c-8e5b-7d9f1b3d5f70",
  credit_note_id: "0f6e5d4c-3b2a-4190-8f7e-6d5c4b3a2910",
  debit_note_id: "6d1b8e2a-4c7f-4e09-9a35-2f8c1d7b0e46",
  delivery_id: "7c8d9e0f-1a2b-4c3d-9e4f-5a6b7c8d9e01",
  webhook_id: "3e1f5a7c-9b2d-4e6f-8a0c-2b4d6f8a0c1e",
  cufe: "a6c1f6a1ba1e2c5b55ac4a3e9a0d3fd6b87b0b3c40a7a0b44e22fbd5f8c7a6d1e95b2d5f4e8a9c0b1d2e3f4a5b6c7d8e9",
  at: "2026-11-25T14:03:27.512Z",
} as const;

/** A DIAN-mode credential in the examples: the demo company's software and certificate (made up). */
export const DIAN_EXAMPLE = {
  settings: {
    provider: "dian",
    software_id: "56f2ae4e-9812-4fad-9255-08fcfcd5ccb0",
    test_set_id: "1cc8a4f3-2ff9-45ff-bc33-9f0d2f0bd1b4",
  },
  /** The first bytes of a PKCS#12 in base64 (a real file is a few thousand characters). */
  p12_base64: "MIIKqQIBAzCCCm8GCSqGSIb3DQEHAaCCCmAEggpcMIIKWDCCBQ8GCSqGSIb3DQEHBqCCBQAw",
  certificate: {
    subject: "C=CO,1.3.6.1.4.1.23267.2.3=900123456,SERIALNUMBER=900123456,CN=Empresa Demo S.A.S.",
    nit: "900123456",
    serial: "1480364931057362219683",
    not_after: "2027-11-24T15:04:05.000Z",
  },
} as const;
