/**
 * The stand-in's reading of PostgREST's query string (devkit/postgrest/query-params.ts) against the
 * examples PostgREST's own parser documents (src/PostgREST/ApiRequest/QueryParams.hs doctests,
 * v14.17, 064e5fea): what each parses to, and which it refuses with PGRST100.
 */
import { describe, expect, it } from "vitest";
import { PgrstError } from "../../devkit/postgrest/errors.ts";
import { parseQueryParams } from "../../devkit/postgrest/query-params.ts";

const parse = (query: string) => parseQueryParams(new URLSearchParams(query));
const refusal = (query: string) => {
  try {
    parse(query);
  } catch (error) {
    if (error instanceof PgrstError) return error.body;
  }
  return undefined;
};

describe("select", () => {
  it("reads fields, embeds with aliases, hints and join types, and spreads", () => {
    expect(parse("select=*,client(*,nested(*))").select).toEqual([
      { kind: "field", name: "*", jsonPath: false },
      {
        kind: "relation",
        name: "client",
        spread: false,
        children: [
          { kind: "field", name: "*", jsonPath: false },
          {
            kind: "relation",
            name: "nested",
            spread: false,
            children: [{ kind: "field", name: "*", jsonPath: false }],
          },
        ],
      },
    ]);
    expect(parse("select=alias:rel!hint!inner(*)").select[0]).toMatchObject({
      kind: "relation",
      name: "rel",
      alias: "alias",
      hint: "hint",
      joinType: "inner",
    });
    expect(
      parse("select=*,...client(*),other(*)").select.map((s) => s.kind === "relation" && s.spread),
    ).toEqual([false, true, false]);
    expect(parse("select=alias:name->jsonpath::cast").select[0]).toEqual({
      kind: "field",
      name: "name",
      alias: "alias",
      jsonPath: true,
      cast: "cast",
    });
    expect(parse('select=identifier-with-dashes,"quoted, name"').select.map((s) => s.name)).toEqual([
      "identifier-with-dashes",
      "quoted, name",
    ]);
    expect(parse("select=").select).toEqual([]);
  });

  it("refuses what PostgREST's parser refuses", () => {
    expect(refusal("select=id,,name")?.code).toBe("PGRST100");
    expect(refusal("select=id,clients(name[])")?.code).toBe("PGRST100");
    expect(refusal("select=name::")?.message).toBe(
      '"failed to parse select parameter (name::)" (line 1, column 7)',
    );
  });
});

describe("filters, logic trees and order", () => {
  it("reads every operator, negation and quantifier", () => {
    const operations = parse(
      'a=eq.1&b=not.in.(1,"x,y",3)&c=is.NULL&d=like(any).{a*,b}&e=fts(english).cat&f=isdistinct.2&g.h=cs.{1}',
    ).filters.map(({ path, filter }) => ({ path, negated: filter.negated, operation: filter.operation }));
    expect(operations).toEqual([
      { path: [], negated: false, operation: { kind: "quant", op: "eq", value: "1" } },
      { path: [], negated: true, operation: { kind: "in", values: ["1", "x,y", "3"] } },
      { path: [], negated: false, operation: { kind: "is", value: "null" } },
      {
        path: [],
        negated: false,
        operation: { kind: "quant", op: "like", quantifier: "any", value: "{a*,b}" },
      },
      { path: [], negated: false, operation: { kind: "fts", op: "fts", language: "english", value: "cat" } },
      { path: [], negated: false, operation: { kind: "isdistinct", value: "2" } },
      { path: ["g"], negated: false, operation: { kind: "simple", op: "cs", value: "{1}" } },
    ]);
    expect(refusal("a=noop.0")).toMatchObject({
      code: "PGRST100",
      message: '"failed to parse filter (noop.0)" (line 1, column 1)',
    });
    expect(refusal("a=val")?.code).toBe("PGRST100");
  });

  it("reads and/or trees with their paths and negation", () => {
    expect(parse("rel.not.or=(id.eq.1,and(a.gt.2,b.in.(3,4)))").logic).toEqual([
      {
        path: ["rel"],
        tree: {
          kind: "expr",
          negated: true,
          op: "or",
          children: [
            {
              kind: "filter",
              filter: {
                field: "id",
                jsonPath: false,
                negated: false,
                operation: { kind: "quant", op: "eq", value: "1" },
              },
            },
            {
              kind: "expr",
              negated: false,
              op: "and",
              children: [
                {
                  kind: "filter",
                  filter: {
                    field: "a",
                    jsonPath: false,
                    negated: false,
                    operation: { kind: "quant", op: "gt", value: "2" },
                  },
                },
                {
                  kind: "filter",
                  filter: {
                    field: "b",
                    jsonPath: false,
                    negated: false,
                    operation: { kind: "in", values: ["3", "4"] },
                  },
                },
              ],
            },
          ],
        },
      },
    ]);
    expect(refusal("or=()")?.code).toBe("PGRST100");
    expect(refusal("or=(id.in.1,2,id.eq.3)")?.code).toBe("PGRST100");
  });

  it("reads order terms and refuses the ones PostgREST refuses", () => {
    expect(parse("order=name.desc.nullsfirst,clients(name).asc,id").order[0]?.terms).toEqual([
      { field: "name", jsonPath: false, direction: "desc", nulls: "nullsfirst" },
      { relation: "clients", field: "name", jsonPath: false, direction: "asc" },
      { field: "id", jsonPath: false },
    ]);
    for (const bad of ["id.ac", "id.descc", "id.nulsfist", "id.nullslasttt", "id.asc.nlsfst"]) {
      expect({ bad, code: refusal(`order=${bad}`)?.code }).toEqual({ bad, code: "PGRST100" });
    }
  });

  it("unions limit and offset per embed path", () => {
    const { ranges } = parse("limit=10&offset=5&lines.limit=2");
    expect(Object.fromEntries(ranges)).toEqual({ limit: { lo: 5, hi: 14 }, "lines.limit": { lo: 0, hi: 1 } });
  });
});
