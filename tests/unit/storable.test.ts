import { describe, expect, it } from "vitest";
import { storable } from "../../shared/core/documents/outcome.ts";

describe("storable", () => {
  it("drops NUL characters anywhere in an outcome, and nothing else", () => {
    const outcome = {
      status: "error",
      message: "rechazo\0 FAJ\\u0000",
      detail: { rules: [{ "co\0de": "F\0" }] },
    };
    expect(storable(outcome)).toEqual({
      status: "error",
      message: "rechazo FAJ\\u0000",
      detail: { rules: [{ code: "F" }] },
    });
  });
});
