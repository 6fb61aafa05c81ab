/**
 * The query string as PostgREST's parser reads it: src/PostgREST/ApiRequest/QueryParams.hs (v14.17,
 * 064e5fea) — `select`, filters (`col=op.value`, on an embed as `rel.col=…`), `and`/`or` trees,
 * `order`, `limit`/`offset`, `columns`, `on_conflict`. A refusal is PGRST100 with Parsec's message
 * form, `"failed to parse <what> (<input>)" (line 1, column N)`; the `details` ("unexpected …
 * expecting …") say the same thing in fewer words than Parsec's (docs/postgrest-stand-in.md).
 */
import { errors, PgrstError } from "./errors.ts";
import { ALL, intersect, limited, type Range, startingAt } from "./range.ts";

export type SelectItem =
  | {
      kind: "field";
      name: string;
      alias?: string;
      cast?: string;
      /** `->`/`->>` after the name: parsed as PostgREST does, answered as not implemented. */
      jsonPath: boolean;
      aggregate?: string;
    }
  | {
      kind: "relation";
      name: string;
      alias?: string;
      hint?: string;
      joinType?: "inner" | "left";
      spread: boolean;
      children: SelectItem[];
    };

export type QuantOp = "eq" | "gte" | "gt" | "lte" | "lt" | "like" | "ilike" | "match" | "imatch";
export type SimpleOp = "neq" | "cs" | "cd" | "ov" | "sl" | "sr" | "nxr" | "nxl" | "adj";
export type IsValue = "null" | "not_null" | "true" | "false" | "unknown";
export type Operation =
  | { kind: "simple"; op: SimpleOp; value: string }
  | { kind: "quant"; op: QuantOp; quantifier?: "any" | "all"; value: string }
  | { kind: "in"; values: string[] }
  | { kind: "is"; value: IsValue }
  | { kind: "isdistinct"; value: string }
  | { kind: "fts"; op: "fts" | "plfts" | "phfts" | "wfts"; language?: string; value: string };

export interface Filter {
  field: string;
  jsonPath: boolean;
  negated: boolean;
  operation: Operation;
}

export type LogicTree =
  | { kind: "filter"; filter: Filter }
  | { kind: "expr"; negated: boolean; op: "and" | "or"; children: LogicTree[] };

export interface OrderTerm {
  /** `rel(col)`: an order by a to-one embed's column. */
  relation?: string;
  field: string;
  jsonPath: boolean;
  direction?: "asc" | "desc";
  nulls?: "nullsfirst" | "nullslast";
}

export interface QueryParams {
  /** The parameters sorted by name, for `Content-Location` (`qsCanonical`). */
  canonical: string;
  select: SelectItem[];
  /** Filters, each with the embed path it applies to ([] for the root). */
  filters: { path: string[]; filter: Filter }[];
  logic: { path: string[]; tree: LogicTree }[];
  order: { path: string[]; terms: OrderTerm[] }[];
  /** `limit`/`offset` per path, keyed `limit` or `rel.limit` as PostgREST keys them. */
  ranges: Map<string, Range>;
  columns?: string[];
  onConflict?: string[];
}

const RESERVED = new Set(["select", "columns", "on_conflict"]);
const RESERVED_EMBEDDABLE = new Set(["order", "limit", "offset", "and", "or"]);

/** QueryParams.hs `parse`, for a table (not an RPC read: every filter needs an operator). */
export function parseQueryParams(search: URLSearchParams): QueryParams {
  const params = [...search.entries()];
  const last = (key: string) => key.split(".").at(-1) ?? "";
  const lookup = (name: string) => params.find(([key]) => key === name)?.[1];
  const order = params.filter(([key]) => last(key) === "order");
  const logic = params.filter(([key]) => last(key) === "and" || last(key) === "or");
  const filters = params.filter(([key]) => !RESERVED.has(key) && !RESERVED_EMBEDDABLE.has(last(key)));
  const canonical = [...params]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`)
    .join("&");

  const columns = lookup("columns");
  const onConflict = lookup("on_conflict");
  const result: QueryParams = {
    canonical,
    order: order.map(([key, value]) => ({
      path: whole(new Parser(key, `failed to parse tree path (${key})`), (p) => p.treePath()).path,
      terms: whole(new Parser(value, `failed to parse order (${value})`), (p) => p.order()),
    })),
    logic: logic.map(([key, value]) => logicParam(key, value)),
    select: whole(
      new Parser(lookup("select") ?? "*", `failed to parse select parameter (${lookup("select") ?? "*"})`),
      (p) => p.fieldForest(),
      false,
    ),
    filters: filters.map(([key, value]) => {
      const { path, field, jsonPath } = whole(new Parser(key, `failed to parse tree path (${key})`), (p) =>
        p.treePath(),
      );
      const parser = new Parser(value, `failed to parse filter (${value})`);
      const { negated, operation } = whole(parser, (p) => p.opExpr((q) => q.rest()));
      return { path, filter: { field, jsonPath, negated, operation } };
    }),
    ranges: ranges(params, last),
  };
  if (columns !== undefined)
    result.columns = whole(new Parser(columns, `failed to parse columns parameter (${columns})`), (p) =>
      p.columns(),
    );
  if (onConflict !== undefined)
    result.onConflict = whole(
      new Parser(onConflict, `failed to parse on_conflict parameter (${onConflict})`),
      (p) => p.columns(),
    );
  return result;
}

/** `limit` and `offset` (keys ending so), unioned per path as QueryParams.hs `ranges` does. */
function ranges(params: [string, string][], last: (key: string) => string): Map<string, Range> {
  const asLimitKey = (key: string) => [...key.split(".").slice(0, -1), "limit"].join(".");
  const integer = (text: string) => (/^\s*-?\d+\s*$/.test(text) ? Number.parseInt(text, 10) : undefined);
  const limits = new Map<string, Range>();
  for (const [key, value] of params.filter(([k]) => last(k) === "limit")) {
    const n = integer(value);
    limits.set(key, n === undefined ? ALL : limited(ALL, n));
  }
  const offsets = new Map<string, Range>();
  for (const [key, value] of params.filter(([k]) => last(k) === "offset")) {
    const n = integer(value);
    offsets.set(asLimitKey(key), n === undefined ? ALL : startingAt(n));
  }
  const result = new Map<string, Range>(limits);
  for (const [key, offset] of offsets) {
    const limit = limits.get(key);
    if (!limit) {
      result.set(key, offset);
      continue;
    }
    // HM.unionWith f: Range (offset) (offset + limit - 1), a limit that is not a number counting as 0
    const count = limit.hi === Number.POSITIVE_INFINITY ? 0 : limit.hi - limit.lo + 1;
    result.set(key, intersect({ lo: offset.lo, hi: offset.lo + count - 1 }, ALL));
  }
  return result;
}

function logicParam(key: string, value: string): { path: string[]; tree: LogicTree } {
  // pLogicPath: the names before the operator, `not` dropped from the path and put before the operator
  const path = whole(new Parser(key, `failed to parse logic path (${key})`), (p) => p.sepBy1Dot());
  const op = path.at(-1) as string;
  const negated = path.includes("not");
  const text = `${negated ? `not.${op}` : op}${value}`;
  const tree = whole(new Parser(text, `failed to parse logic tree (${value})`), (p) => p.logicTree());
  return { path: path.slice(0, -1).filter((name) => name !== "not"), tree };
}

function whole<T>(parser: Parser, run: (p: Parser) => T, toEnd = true): T {
  const value = run(parser);
  if (toEnd) parser.end();
  return value;
}

const IDENTIFIER_CHAR = /[\p{L}0-9_ $]/u;

/** A recursive-descent reading of the Parsec grammar in QueryParams.hs, one input string at a time. */
class Parser {
  private at = 0;
  constructor(
    private readonly input: string,
    private readonly source: string,
  ) {}

  fail(expecting: string): never {
    const next = this.input[this.at];
    const unexpected = next === undefined ? "end of input" : JSON.stringify(next);
    throw errors.queryParam(
      `"${this.source}" (line 1, column ${this.at + 1})`,
      `unexpected ${unexpected} expecting ${expecting}`,
    );
  }

  end(): void {
    if (this.at < this.input.length) this.fail("end of input");
  }

  private peek(text: string): boolean {
    return this.input.startsWith(text, this.at);
  }

  private eat(text: string): boolean {
    if (!this.peek(text)) return false;
    this.at += text.length;
    return true;
  }

  private expect(text: string): void {
    if (!this.eat(text)) this.fail(JSON.stringify(text));
  }

  private spaces(): void {
    while (this.input[this.at] === " " || this.input[this.at] === "\t") this.at++;
  }

  rest(): string {
    const value = this.input.slice(this.at);
    this.at = this.input.length;
    return value;
  }

  /** pQuotedValue: `"…"` with `\` escaping the next character. */
  private quoted(): string | undefined {
    if (this.input[this.at] !== '"') return undefined;
    let at = this.at + 1;
    let value = "";
    while (at < this.input.length && this.input[at] !== '"') {
      if (this.input[at] === "\\" && at + 1 < this.input.length) at++;
      value += this.input[at];
      at++;
    }
    if (this.input[at] !== '"') {
      this.at = at;
      this.fail('"\\"" (the closing quote)');
    }
    this.at = at + 1;
    return value;
  }

  private identifier(): string | undefined {
    const start = this.at;
    while (this.at < this.input.length && IDENTIFIER_CHAR.test(this.input[this.at] as string)) this.at++;
    return this.at > start ? this.input.slice(start, this.at).trim() : undefined;
  }

  /** pFieldName: quoted, or identifiers joined by dashes (a dash not starting `->`). */
  fieldName(): string {
    const quoted = this.quoted();
    if (quoted !== undefined) return quoted;
    const parts: string[] = [];
    for (;;) {
      const part = this.identifier();
      if (part === undefined) {
        if (parts.length === 0) this.fail("field name (* or [a..z0..9_$])");
        this.at--; // the dash belonged to what follows
        break;
      }
      parts.push(part);
      if (this.peek("-") && !this.peek("->")) this.at++;
      else break;
    }
    return parts.join("-");
  }

  /** pJsonPath: `->key`, `->>key`, `->0` …; true when one was there. */
  private jsonPath(): boolean {
    let found = false;
    while (this.peek("->")) {
      found = true;
      this.eat("->>") || this.eat("->");
      const quoted = this.quoted();
      if (quoted !== undefined) continue;
      const start = this.at;
      while (this.at < this.input.length && !"(:.,>)".includes(this.input[this.at] as string)) {
        if (this.peek("->")) break;
        this.at++;
      }
      if (this.at === start) this.fail("any non reserved character different from: .,>()");
    }
    return found;
  }

  /** pTreePath: names separated by dots, the last one the field (with its JSON path). */
  treePath(): { path: string[]; field: string; jsonPath: boolean } {
    const names = this.sepBy1Dot();
    const jsonPath = this.jsonPath();
    return { path: names.slice(0, -1), field: names.at(-1) as string, jsonPath };
  }

  sepBy1Dot(): string[] {
    const names = [this.fieldName()];
    while (this.eat(".")) names.push(this.fieldName());
    return names;
  }

  /** pColumns: field names separated by commas. */
  columns(): string[] {
    const names = [this.fieldName()];
    for (;;) {
      this.spaces();
      if (!this.eat(",")) return names;
      this.spaces();
      names.push(this.fieldName());
    }
  }

  private castType(): string {
    const start = this.at;
    while (this.at < this.input.length && IDENTIFIER_CHAR.test(this.input[this.at] as string)) this.at++;
    if (this.at === start) this.fail("letter or digit");
    return this.input.slice(start, this.at).trim();
  }

  /** pFieldForest: items separated by commas (possibly none). */
  fieldForest(): SelectItem[] {
    const items: SelectItem[] = [];
    this.spaces();
    if (this.at >= this.input.length || this.peek(")")) return items;
    for (;;) {
      items.push(this.fieldTree());
      this.spaces();
      if (!this.eat(",")) return items;
      this.spaces();
    }
  }

  private selectEnd(): void {
    this.spaces();
    if (!(this.at >= this.input.length || this.peek(")") || this.peek(","))) {
      this.fail('"->>", "->", "::", ".", ")", "," or end of input');
    }
  }

  private fieldTree(): SelectItem {
    this.spaces();
    // pSpreadRelationSelect
    if (this.eat("...")) {
      const name = this.fieldName();
      const params = this.embedParams();
      this.expect("(");
      const children = this.fieldForest();
      this.expect(")");
      return { kind: "relation", name, spread: true, children, ...params };
    }
    if (this.eat("*")) {
      this.selectEnd();
      return { kind: "field", name: "*", jsonPath: false };
    }
    // an alias: a field name followed by one ':' (not '::')
    let alias: string | undefined;
    const beforeAlias = this.at;
    if (!this.peek(":")) {
      try {
        const name = this.fieldName();
        if (this.peek(":") && !this.peek("::")) {
          this.at++;
          alias = name;
        } else this.at = beforeAlias;
      } catch (e) {
        if (!(e instanceof PgrstError)) throw e;
        this.at = beforeAlias;
      }
    }
    if (this.eat("count()")) {
      const aggregateCast = this.eat("::") ? this.castType() : undefined;
      this.selectEnd();
      return {
        kind: "field",
        name: "*",
        jsonPath: false,
        aggregate: "count",
        ...(alias ? { alias } : {}),
        ...(aggregateCast ? { cast: aggregateCast } : {}),
      };
    }
    const name = this.fieldName();
    // pRelationSelect: `name!hint!inner(…)`; `count` is never a relation
    const afterName = this.at;
    const params = this.embedParams();
    if (this.peek("(") && name !== "count") {
      this.at++;
      const children = this.fieldForest();
      this.expect(")");
      return { kind: "relation", name, spread: false, children, ...(alias ? { alias } : {}), ...params };
    }
    this.at = afterName;
    const jsonPath = this.jsonPath();
    const cast = this.eat("::") ? this.castType() : undefined;
    let aggregate: string | undefined;
    const beforeAggregate = this.at;
    if (this.eat(".")) {
      const found = ["sum", "avg", "count", "max", "min"].find((a) => this.eat(`${a}()`));
      if (found) aggregate = found;
      else this.at = beforeAggregate;
    }
    if (aggregate && this.eat("::")) this.castType();
    this.selectEnd();
    return {
      kind: "field",
      name,
      jsonPath,
      ...(alias ? { alias } : {}),
      ...(cast ? { cast } : {}),
      ...(aggregate ? { aggregate } : {}),
    };
  }

  /** pEmbedParams: up to two of `!left`, `!inner`, `!hint`. */
  private embedParams(): { hint?: string; joinType?: "inner" | "left" } {
    const result: { hint?: string; joinType?: "inner" | "left" } = {};
    for (let i = 0; i < 2 && this.eat("!"); i++) {
      if (this.eat("left")) result.joinType ??= "left";
      else if (this.eat("inner")) result.joinType ??= "inner";
      else result.hint ??= this.fieldName();
    }
    return result;
  }

  /** pOpExpr: `not.` then an operator and its value (read by `value`). */
  opExpr(value: (p: Parser) => string): { negated: boolean; operation: Operation } {
    const negated = this.eat("not.");
    return { negated, operation: this.operation(value) };
  }

  private operation(value: (p: Parser) => string): Operation {
    if (this.eat("in.")) return { kind: "in", values: this.listValue() };
    if (this.eat("is.")) {
      const word = ["null", "not_null", "true", "false", "unknown"].find(
        (w) => this.input.slice(this.at, this.at + w.length).toLowerCase() === w,
      );
      if (!word) this.fail("isVal: (null, not_null, true, false, unknown)");
      this.at += word.length;
      return { kind: "is", value: word as IsValue };
    }
    if (this.eat("isdistinct.")) return { kind: "isdistinct", value: value(this) };
    for (const op of ["fts", "plfts", "phfts", "wfts"] as const) {
      const start = this.at;
      if (!this.eat(op)) continue;
      let language: string | undefined;
      if (this.eat("(")) {
        language = this.castType();
        if (!this.eat(")")) {
          this.at = start;
          continue;
        }
      }
      if (!this.eat(".")) {
        this.at = start;
        continue;
      }
      return { kind: "fts", op, value: value(this), ...(language ? { language } : {}) };
    }
    for (const op of ["neq", "cs", "cd", "ov", "sl", "sr", "nxr", "nxl", "adj"] as const) {
      if (this.eat(`${op}.`)) return { kind: "simple", op, value: value(this) };
    }
    for (const op of ["eq", "gte", "gt", "lte", "lt", "like", "ilike", "match", "imatch"] as const) {
      const start = this.at;
      if (!this.eat(op)) continue;
      let quantifier: "any" | "all" | undefined;
      if (this.eat("(any)")) quantifier = "any";
      else if (this.eat("(all)")) quantifier = "all";
      if (this.eat("."))
        return { kind: "quant", op, value: value(this), ...(quantifier ? { quantifier } : {}) };
      this.at = start;
    }
    return this.fail('"not" or operator (eq, gt, ...)');
  }

  /** pListVal: `(a,"b,c",d)`. */
  private listValue(): string[] {
    this.spaces();
    this.expect("(");
    this.spaces();
    const values: string[] = [];
    for (;;) {
      const start = this.at;
      const quoted = this.quoted();
      if (quoted !== undefined && (this.peek(",") || this.peek(")"))) values.push(quoted);
      else {
        this.at = start;
        while (this.at < this.input.length && !",)".includes(this.input[this.at] as string)) this.at++;
        values.push(this.input.slice(start, this.at));
      }
      if (!this.eat(",")) break;
    }
    this.spaces();
    this.expect(")");
    this.spaces();
    return values;
  }

  /** pLogicSingleVal: quoted, a `{…}` array literal, or up to the next `,` or `)`. */
  private logicValue(): string {
    const start = this.at;
    const quoted = this.quoted();
    if (quoted !== undefined && (this.at >= this.input.length || this.peek(",") || this.peek(")")))
      return quoted;
    this.at = start;
    if (this.peek("{")) {
      const close = this.input.indexOf("}", this.at);
      const inner = this.input.slice(this.at + 1, close);
      if (close > 0 && !inner.includes("{")) {
        this.at = close + 1;
        return this.input.slice(start, this.at);
      }
    }
    while (this.at < this.input.length && !",)".includes(this.input[this.at] as string)) this.at++;
    return this.input.slice(start, this.at);
  }

  /** pLogicTree: `or(…)`, `not.and(…)` of filters and trees. */
  logicTree(depth = 0): LogicTree {
    if (depth > MAX_LOGIC_DEPTH) {
      throw errors.notImplemented(`the stand-in nests and/or at most ${MAX_LOGIC_DEPTH} deep`);
    }
    const start = this.at;
    const negated = this.eat("not.");
    const op = this.eat("and") ? "and" : this.eat("or") ? "or" : undefined;
    this.spaces();
    if (op && this.eat("(")) {
      this.spaces();
      const children: LogicTree[] = [this.logicTree(depth + 1)];
      for (;;) {
        this.spaces();
        if (!this.eat(",")) break;
        this.spaces();
        children.push(this.logicTree(depth + 1));
      }
      this.spaces();
      this.expect(")");
      this.spaces();
      return { kind: "expr", negated, op, children };
    }
    this.at = start;
    this.spaces();
    const field = this.fieldName();
    const jsonPath = this.jsonPath();
    this.spaces();
    if (!this.eat(".")) this.fail("delimiter (.)");
    const { negated: filterNegated, operation } = this.opExpr((p) => p.logicValue());
    return { kind: "filter", filter: { field, jsonPath, negated: filterNegated, operation } };
  }

  /** pOrder: terms separated by commas: `col.desc.nullslast`, `rel(col).asc`. */
  order(): OrderTerm[] {
    const terms: OrderTerm[] = [];
    for (;;) {
      this.spaces();
      const field = this.fieldName();
      let term: OrderTerm;
      if (this.eat("(")) {
        const inner = this.fieldName();
        const jsonPath = this.jsonPath();
        this.expect(")");
        term = { relation: field, field: inner, jsonPath };
      } else term = { field, jsonPath: this.jsonPath() };
      if (this.eat(".asc")) term.direction = "asc";
      else if (this.eat(".desc")) term.direction = "desc";
      if (this.eat(".nullsfirst")) term.nulls = "nullsfirst";
      else if (this.eat(".nullslast")) term.nulls = "nullslast";
      this.spaces();
      if (!(this.at >= this.input.length || this.peek(","))) {
        this.fail('"asc", "desc", "nullsfirst" or "nullslast"');
      }
      terms.push(term);
      if (!this.eat(",")) return terms;
    }
  }
}

/** How deep the stand-in reads `and`/`or` trees (PostgREST has no limit; the URL bounds it there). */
export const MAX_LOGIC_DEPTH = 8;
