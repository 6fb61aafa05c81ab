/**
 * A pool of up to `max` connections that hands out the idle one used most recently (last in, first
 * out), as PgBouncer does by default (`server_round_robin = 0`): calls that come one after another
 * keep landing on the same warm server process, and the others are opened only when calls overlap.
 *
 * postgres.js's own pool takes the idle connection that waited longest, so sequential calls rotate
 * through every connection; with five, a one-invoice /transmit's two calls took 45 % longer than on
 * one (`npm run bench -- --phases`), each landing on a server process that had gone cold.
 *
 * A connection whose call failed with an error that `broken` recognises is closed and forgotten, and
 * the next call opens a new one.
 */
export interface LifoPool<C> {
  /** Runs `work` on a connection of its own, waiting for one when all `max` are in use. */
  use<T>(work: (connection: C) => Promise<T>): Promise<T>;
  /** Closes every connection. */
  close(): Promise<void>;
}

export interface LifoPoolOptions<C> {
  /** Opens a connection; a plain object, never a promise (it is awaited as a whole otherwise). */
  open: () => C;
  close: (connection: C) => Promise<void>;
  /** Whether an error a call failed with leaves its connection unusable. */
  broken: (error: unknown) => boolean;
  max: number;
}

export function lifoPool<C>({ open, close, broken, max }: LifoPoolOptions<C>): LifoPool<C> {
  if (!Number.isInteger(max) || max < 1)
    throw new RangeError(`a pool needs at least one connection, not ${max}`);
  const opened = new Set<C>();
  const idle: C[] = []; // the most recently released last
  const waiting: ((connection: C) => void)[] = []; // first come, first served

  const fresh = (): C => {
    const connection = open();
    opened.add(connection);
    return connection;
  };
  const acquire = (): C | Promise<C> => {
    const connection = idle.pop();
    if (connection !== undefined) return connection;
    if (opened.size < max) return fresh();
    return new Promise<C>((resolve) => waiting.push(resolve));
  };
  const release = (connection: C) => {
    const next = waiting.shift();
    if (next) next(connection);
    else idle.push(connection);
  };
  const discard = (connection: C) => {
    opened.delete(connection);
    close(connection).catch(() => {});
    const next = waiting.shift();
    if (next) next(fresh());
  };

  return {
    use: async (work) => {
      const connection = await acquire();
      try {
        const result = await work(connection);
        release(connection);
        return result;
      } catch (error) {
        if (broken(error)) discard(connection);
        else release(connection);
        throw error;
      }
    },
    close: async () => {
      await Promise.all([...opened].map((connection) => close(connection)));
      opened.clear();
      idle.length = 0;
    },
  };
}
