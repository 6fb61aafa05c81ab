/**
 * A pool of up to `max` connections that hands out the idle one used most recently (last in, first
 * out), as PgBouncer does by default (`server_round_robin = 0`): calls that come one after another
 * keep landing on the same warm server process, and the others are opened only when calls overlap.
 * When every connection is in use, a call joins the one with the fewest calls in flight, and the
 * driver pipelines it behind them (postgres.js sends a query without waiting for the one before, and
 * keeps a transaction's connection to itself), so a saturated pool keeps the server busy.
 *
 * postgres.js's own pool takes the idle connection that waited longest, so sequential calls rotate
 * through every connection; with five, a one-invoice /transmit's two calls took 45 % longer than on
 * one (`npm run bench -- --phases`), each landing on a server process that had gone cold.
 *
 * A connection whose call failed with an error that `broken` recognises is closed (its calls already
 * sent may finish) and forgotten. The next call opens a new one at once; if that one breaks too, the
 * pool waits before opening another, doubling the wait up to `backoff.maxMs`, and meanwhile a call
 * that finds no live connection fails at once (`unavailable`), so an outage is not met with a storm
 * of connection attempts. A call that reaches the server on a connection opened since resets the wait.
 */
export interface LifoPool<C> {
  /** Runs `work` on a connection: an idle one, a new one, or else the least busy. */
  use<T>(work: (connection: C) => Promise<T>): Promise<T>;
  /** Closes every connection once its calls are done; later calls fail (`unavailable`). */
  close(): Promise<void>;
}

export interface LifoPoolOptions<C> {
  open: () => C;
  close: (connection: C) => Promise<void>;
  /** Whether an error a call failed with leaves its connection unusable. */
  broken: (error: unknown) => boolean;
  /** The error a call fails with when no connection may be used: the pool is closed, or waiting. */
  unavailable: (reason: "closed" | "backing off") => Error;
  max: number;
  backoff?: { minMs: number; maxMs: number };
  now?: () => number;
}

interface Slot<C> {
  connection: C;
  /** Calls running on it. */
  calls: number;
  /** The number of connections broken before it was opened. */
  opened: number;
}

export function lifoPool<C>({
  open,
  close,
  broken,
  unavailable,
  max,
  backoff = { minMs: 50, maxMs: 2000 },
  now = () => performance.now(),
}: LifoPoolOptions<C>): LifoPool<C> {
  if (!Number.isInteger(max) || max < 1)
    throw new RangeError(`a pool needs at least one connection, not ${max}`);
  const slots = new Set<Slot<C>>();
  const idle: Slot<C>[] = []; // the most recently released last
  let closed = false;
  let broke = 0; // connections broken so far
  let failures = 0; // connections broken in a row, since one opened after the last broke answered
  let reopenAt = 0;

  const leastBusy = (): Slot<C> | undefined => {
    let best: Slot<C> | undefined;
    for (const slot of slots) if (!best || slot.calls < best.calls) best = slot;
    return best;
  };
  const acquire = (): Slot<C> => {
    if (closed) throw unavailable("closed");
    let slot = idle.pop();
    if (!slot && slots.size < max && now() >= reopenAt) {
      slot = { connection: open(), calls: 0, opened: broke };
      slots.add(slot);
    }
    slot ??= leastBusy();
    if (!slot) throw unavailable("backing off");
    slot.calls++;
    return slot;
  };
  /**
   * The call reached the server: its connection goes back and, if it was opened after the last one
   * broke, the wait before reopening ends (an older one answering says nothing of new connections:
   * the server may be refusing them, as with "too many clients").
   */
  const answered = (slot: Slot<C>) => {
    if (slot.opened === broke) {
      failures = 0;
      reopenAt = 0;
    }
    slot.calls--;
    if (slot.calls === 0 && slots.has(slot)) idle.push(slot);
  };
  const discard = (slot: Slot<C>) => {
    slot.calls--;
    // (never idle: a call was on it) — and another call on it may have found it broken first
    if (!slots.delete(slot)) return;
    broke++;
    failures++;
    reopenAt = failures < 2 ? 0 : now() + Math.min(backoff.maxMs, backoff.minMs * 2 ** (failures - 2));
    close(slot.connection).catch(() => {});
  };

  return {
    use: async (work) => {
      const slot = acquire();
      try {
        const result = await work(slot.connection);
        answered(slot);
        return result;
      } catch (error) {
        if (broken(error)) discard(slot);
        else answered(slot); // the server answered, with an error
        throw error;
      }
    },
    close: async () => {
      closed = true;
      const all = [...slots];
      slots.clear();
      idle.length = 0;
      await Promise.all(all.map((slot) => close(slot.connection)));
    },
  };
}
