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
 * A connection whose call failed with an error that `broken` recognises is closed and forgotten, and
 * the next call opens a new one.
 */
export interface LifoPool<C> {
  /** Runs `work` on a connection: an idle one, a new one, or else the least busy. */
  use<T>(work: (connection: C) => Promise<T>): Promise<T>;
  /** Closes every connection. */
  close(): Promise<void>;
}

export interface LifoPoolOptions<C> {
  open: () => C;
  close: (connection: C) => Promise<void>;
  /** Whether an error a call failed with leaves its connection unusable. */
  broken: (error: unknown) => boolean;
  max: number;
}

interface Slot<C> {
  connection: C;
  /** Calls running on it. */
  calls: number;
}

export function lifoPool<C>({ open, close, broken, max }: LifoPoolOptions<C>): LifoPool<C> {
  if (!Number.isInteger(max) || max < 1)
    throw new RangeError(`a pool needs at least one connection, not ${max}`);
  const slots = new Set<Slot<C>>();
  const idle: Slot<C>[] = []; // the most recently released last

  const acquire = (): Slot<C> => {
    let slot = idle.pop();
    if (!slot && slots.size < max) {
      slot = { connection: open(), calls: 0 };
      slots.add(slot);
    }
    if (!slot) for (const s of slots) if (!slot || s.calls < slot.calls) slot = s;
    // (slots is never empty here: max ≥ 1)
    const taken = slot as Slot<C>;
    taken.calls++;
    return taken;
  };
  const release = (slot: Slot<C>) => {
    slot.calls--;
    if (slot.calls === 0 && slots.has(slot)) idle.push(slot);
  };
  const discard = (slot: Slot<C>) => {
    slot.calls--;
    if (!slots.delete(slot)) return; // another call on it found it broken first
    const at = idle.indexOf(slot);
    if (at >= 0) idle.splice(at, 1);
    close(slot.connection).catch(() => {});
  };

  return {
    use: async (work) => {
      const slot = acquire();
      try {
        const result = await work(slot.connection);
        release(slot);
        return result;
      } catch (error) {
        if (broken(error)) discard(slot);
        else release(slot);
        throw error;
      }
    },
    close: async () => {
      const all = [...slots];
      slots.clear();
      idle.length = 0;
      await Promise.all(all.map((slot) => close(slot.connection)));
    },
  };
}
