/** The database client's pool: the warmest idle connection first, bounded, broken ones replaced. */
import { describe, expect, it } from "vitest";
import { lifoPool } from "../../shared/db/lifo-pool.ts";

interface Conn {
  id: number;
  closed: boolean;
}
class Broken extends Error {}

function counted(max: number) {
  const conns: Conn[] = [];
  const pool = lifoPool<Conn>({
    open: () => {
      const conn = { id: conns.length + 1, closed: false };
      conns.push(conn);
      return conn;
    },
    close: async (conn) => {
      conn.closed = true;
    },
    broken: (error) => error instanceof Broken,
    max,
  });
  const idOf = (work: (c: Conn) => Promise<unknown> = async () => {}) =>
    pool.use(async (c) => {
      await work(c);
      return c.id;
    });
  return { pool, conns, idOf };
}

/** A call that holds its connection until released. */
function held() {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { gate, release };
}

describe("lifoPool", () => {
  it("opens one connection for calls that come one after another, and reuses it", async () => {
    const { conns, idOf } = counted(5);
    for (let i = 0; i < 10; i++) expect(await idOf()).toBe(1);
    expect(conns).toHaveLength(1);
  });

  it("opens more only while calls overlap, and then hands out the one released last", async () => {
    const { conns, idOf } = counted(5);
    const a = held();
    const b = held();
    const first = idOf(() => a.gate);
    const second = idOf(() => b.gate);
    expect(conns).toHaveLength(2);
    b.release();
    expect(await second).toBe(2);
    a.release();
    expect(await first).toBe(1);
    // 1 was released last: it is the warmest
    expect(await idOf()).toBe(1);
    expect(conns).toHaveLength(2);
  });

  it("never opens more than max; callers beyond it wait their turn, first come first served", async () => {
    const { conns, idOf } = counted(1);
    const a = held();
    const order: string[] = [];
    const first = idOf(() => a.gate);
    const second = idOf(async () => void order.push("second"));
    const third = idOf(async () => void order.push("third"));
    await Promise.resolve();
    expect(order).toEqual([]);
    a.release();
    await Promise.all([first, second, third]);
    expect(order).toEqual(["second", "third"]);
    expect(conns).toHaveLength(1);
  });

  it("passes a call's error on and keeps the connection when the error is not a broken connection", async () => {
    const { conns, pool, idOf } = counted(1);
    await expect(pool.use(async () => Promise.reject(new Error("a statement failed")))).rejects.toThrow(
      "a statement failed",
    );
    expect(await idOf()).toBe(1);
    expect(conns.map((c) => c.closed)).toEqual([false]);
  });

  it("closes a broken connection and opens a new one for the next call, and for one already waiting", async () => {
    const { conns, pool, idOf } = counted(1);
    const a = held();
    const failing = pool.use(async () => {
      await a.gate;
      throw new Broken("connection reset");
    });
    const waiting = idOf();
    a.release();
    await expect(failing).rejects.toThrow("connection reset");
    expect(await waiting).toBe(2);
    expect(conns.map((c) => c.closed)).toEqual([true, false]);
    expect(await idOf()).toBe(2);
  });

  it("closes every connection on close", async () => {
    const { conns, pool, idOf } = counted(3);
    const a = held();
    const calls = [idOf(() => a.gate), idOf(() => a.gate)];
    a.release();
    await Promise.all(calls);
    await pool.close();
    expect(conns.map((c) => c.closed)).toEqual([true, true]);
  });

  it("refuses a pool without connections", () => {
    expect(() => counted(0)).toThrow(RangeError);
  });
});
