/** The database client's pool: the warmest idle connection first, bounded, broken ones replaced. */
import { describe, expect, it } from "vitest";
import { lifoPool } from "../../shared/db/lifo-pool.ts";

interface Conn {
  id: number;
  closed: boolean;
}
class Broken extends Error {}

function counted(max: number, clock = { now: 0 }) {
  const conns: Conn[] = [];
  const pool = lifoPool<Conn>({
    unavailable: (reason) => new Error(`unavailable: ${reason}`),
    now: () => clock.now,
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

  it("never opens more than max; beyond it a call joins the connection with the fewest calls in flight", async () => {
    const { conns, idOf } = counted(2);
    const a = held();
    const first = idOf(() => a.gate); // opens 1
    const second = idOf(() => a.gate); // opens 2
    const third = idOf(() => a.gate); // one call on each: joins the first of them
    const fourth = idOf(() => a.gate); // 1 has two calls, 2 has one
    a.release();
    expect(await Promise.all([first, second, third, fourth])).toEqual([1, 2, 1, 2]);
    expect(conns).toHaveLength(2);
  });

  it("passes a call's error on and keeps the connection when the error is not a broken connection", async () => {
    const { conns, pool, idOf } = counted(1);
    await expect(pool.use(async () => Promise.reject(new Error("a statement failed")))).rejects.toThrow(
      "a statement failed",
    );
    expect(await idOf()).toBe(1);
    expect(conns.map((c) => c.closed)).toEqual([false]);
  });

  it("closes a broken connection and opens a new one for the next call", async () => {
    const { conns, pool, idOf } = counted(1);
    const a = held();
    const failing = pool.use(async () => {
      await a.gate;
      throw new Broken("connection reset");
    });
    // a call that joined the same connection fails with it, and does not put it back either
    const alsoFailing = pool.use(async () => {
      await a.gate;
      throw new Broken("connection reset");
    });
    a.release();
    await expect(failing).rejects.toThrow("connection reset");
    await expect(alsoFailing).rejects.toThrow("connection reset");
    expect(conns.map((c) => c.closed)).toEqual([true]);
    expect(await idOf()).toBe(2);
    expect(await idOf()).toBe(2);
    expect(conns.map((c) => c.closed)).toEqual([true, false]);
  });

  it("closes every connection on close, and refuses calls afterwards without opening one", async () => {
    const { conns, pool, idOf } = counted(3);
    const a = held();
    const calls = [idOf(() => a.gate), idOf(() => a.gate)];
    a.release();
    await Promise.all(calls);
    await pool.close();
    expect(conns.map((c) => c.closed)).toEqual([true, true]);
    await expect(idOf()).rejects.toThrow("unavailable: closed");
    expect(conns).toHaveLength(2);
  });

  it("reopens at once after one broken connection, then waits longer after each further one", async () => {
    const clock = { now: 0 };
    const { conns, pool, idOf } = counted(2, clock);
    const breaks = () => pool.use(() => Promise.reject(new Broken("refused")));
    await expect(breaks()).rejects.toThrow("refused"); // 1st broken: the next opens at once
    await expect(breaks()).rejects.toThrow("refused"); // 2nd: wait 50 ms
    expect(conns).toHaveLength(2);
    await expect(idOf()).rejects.toThrow("unavailable: backing off");
    clock.now = 49;
    await expect(idOf()).rejects.toThrow("unavailable: backing off");
    clock.now = 50;
    await expect(breaks()).rejects.toThrow("refused"); // 3rd: wait 100 ms
    clock.now = 149;
    await expect(idOf()).rejects.toThrow("unavailable: backing off");
    expect(conns).toHaveLength(3);
    clock.now = 150;
    expect(await idOf()).toBe(4); // reaches the server: the wait is reset
    await expect(breaks()).rejects.toThrow("refused");
    expect(await idOf()).toBe(5);
  });

  it("while it waits, calls still use a connection that is alive", async () => {
    const clock = { now: 0 };
    const { pool, idOf } = counted(3, clock);
    const a = held();
    const alive = idOf(() => a.gate); // 1, busy
    const breaking = (gate: Promise<void>) =>
      pool.use(async () => {
        await gate;
        throw new Broken("reset");
      });
    const b = held();
    const first = breaking(b.gate); // 2
    const second = breaking(b.gate); // 3
    b.release();
    await expect(first).rejects.toThrow("reset");
    await expect(second).rejects.toThrow("reset");
    expect(await idOf()).toBe(1); // no new one may open yet: joins the live one
    a.release();
    expect(await alive).toBe(1);
  });

  it("keeps waiting when only a connection opened before the failures answers (new ones refused)", async () => {
    const clock = { now: 0 };
    const { conns, pool, idOf } = counted(3, clock);
    const a = held();
    const old = idOf(() => a.gate); // 1, stays alive and busy
    const breaks = () => pool.use(() => Promise.reject(new Broken("too many clients")));
    await expect(breaks()).rejects.toThrow(); // 2
    await expect(breaks()).rejects.toThrow(); // 3: now waiting 50 ms
    a.release();
    expect(await old).toBe(1); // the old connection answers: no reason to think new ones would open
    const b = held();
    const busy = idOf(() => b.gate); // takes 1 again
    expect(await Promise.race([idOf(), busy])).toBe(1); // joins 1, does not open a fourth
    b.release();
    await busy;
    expect(conns).toHaveLength(3);
  });

  it("refuses a pool without connections", () => {
    expect(() => counted(0)).toThrow(RangeError);
  });
});
