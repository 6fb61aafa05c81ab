/**
 * The membership check of `operation()`: the caller must be a member of the body's `org_id` with
 * one of the route's roles before anything is read, written or answered for them.
 *
 * Most routes check it with a call of its own (`einv_caller_membership`, as the user) before their
 * handler runs. A route that declares `firstCallAuthorizes` saves that round trip: its handler gets
 * scopes behind a gate, and when the gate's first use is a call its handler makes through
 * `callAuthorized()` (shared/ports/db/port.ts), naming an `_authorized` function, the gate makes that
 * function — the database looks up the membership and makes the wrapped call only for an
 * authorized caller, in one round trip. Any other first use — another function, the user scope,
 * the documents store — checks the membership on its own first, and so does answering without
 * having used anything. A handler behind the gate reaches the database, the store and the
 * providers only through its context.
 */

import type { MembershipRow } from "../kernel/rows.ts";
import { type Caller, type Db, type DbScope, wrapped } from "../ports/db/port.ts";
import type { DocumentStore } from "../ports/storage.ts";
import { fail } from "./errors.ts";

export type Role = "admin" | "operador" | "lector";

export interface Gate {
  /** The app's database behind the gate: `asUser` and `asService` give the gated scopes. */
  db: Db;
  userDb: DbScope;
  serviceDb: DbScope;
  documents: DocumentStore;
  /** Checks the membership now, unless it was already (with a first call or on its own). */
  authorize(): Promise<MembershipRow>;
}

export function authorizationGate(options: {
  db: Db;
  caller: Caller;
  documents: DocumentStore;
  orgId: string;
  roles: readonly Role[];
}): Gate {
  const { db, caller, orgId, roles } = options;
  const userDb = db.asUser(caller);
  const serviceDb = db.asService();
  let checked: Promise<MembershipRow> | undefined;

  const admit = (membership: MembershipRow | null): MembershipRow => {
    if (!membership) fail("forbidden", "You are not a member of this organization.");
    if (!roles.includes(membership.role as Role)) {
      fail("forbidden", `This operation needs the role ${roles.join(" or ")}; you are ${membership.role}.`);
    }
    return membership;
  };
  const authorize = () =>
    (checked ??= userDb.call("einv_caller_membership", { p_org_id: orgId }).then(admit));

  const behind = (scope: DbScope): DbScope => ({
    call: async (fn, args) => {
      await authorize();
      return scope.call(fn, args);
    },
  });
  const gatedService: DbScope = {
    ...behind(serviceDb),
    // The first use carries the check; a later one is the wrapped call, the caller checked.
    callAuthorized: async (fn, args) => {
      if (checked !== undefined) return gatedService.call(wrapped(fn), args);
      const answer = serviceDb.call(fn, {
        p_user_id: caller.claims.sub,
        p_roles: roles,
        ...(args as Record<string, unknown>),
      } as never);
      checked = answer.then(({ membership }) => admit(membership));
      await checked;
      return (await answer).result as never;
    },
  };
  const gatedUser = behind(userDb);
  const gatedDocuments: DocumentStore = {
    put: async (...args) => {
      await authorize();
      return options.documents.put(...args);
    },
    get: async (...args) => {
      await authorize();
      return options.documents.get(...args);
    },
  };
  return {
    db: {
      asUser: (other) => (other === caller ? gatedUser : behind(db.asUser(other))),
      asService: () => gatedService,
      close: () => db.close(),
    },
    userDb: gatedUser,
    serviceDb: gatedService,
    documents: gatedDocuments,
    authorize,
  };
}
