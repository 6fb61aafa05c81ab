/** An msw server for one test file: every request must be handled, handlers reset after each test. */
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll } from "vitest";

export function useNetworkEdge(): ReturnType<typeof setupServer> {
  const server = setupServer();
  beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
  afterEach(() => server.resetHandlers());
  afterAll(() => server.close());
  return server;
}
