"use client";

import { useRouter } from "next/navigation";
import { createContext, useContext, useEffect, useState, type ReactNode } from "react";
import type { Me } from "@throng/protocol/api";
import { api } from "../../lib/shared/api";
import { errorMessage, isUnauthenticated } from "../../lib/shared/api-client";
import { AppNav } from "./app-nav";

const MeContext = createContext<Me | null>(null);

/** The signed-in user and organisation; only usable below SessionGate. */
export function useMe(): Me {
  const me = useContext(MeContext);
  if (!me) throw new Error("useMe() used outside SessionGate");
  return me;
}

/** Loads GET /api/me; signed-out visitors go to /sign-in, everyone else gets the nav and the page. */
export function SessionGate({ children }: { children: ReactNode }) {
  // "Try again" starts the load over: a new attempt is a fresh SessionLoad (no user, no failure, a new request).
  const [attempt, setAttempt] = useState(0);
  return (
    <SessionLoad key={attempt} onRetry={() => setAttempt((n) => n + 1)}>
      {children}
    </SessionLoad>
  );
}

function SessionLoad({ children, onRetry }: { children: ReactNode; onRetry: () => void }) {
  const router = useRouter();
  const [me, setMe] = useState<Me | null>(null);
  const [failure, setFailure] = useState<string | null>(null);

  useEffect(() => {
    const controller = new AbortController();
    api
      .me(controller.signal)
      .then(setMe)
      .catch((error: unknown) => {
        if (controller.signal.aborted) return;
        if (isUnauthenticated(error)) router.replace("/sign-in");
        else setFailure(errorMessage(error));
      });
    return () => controller.abort();
  }, [router]);

  if (failure) {
    return (
      <main>
        <p className="alert" role="alert">
          {failure}
        </p>
        <button className="button" type="button" onClick={onRetry}>
          Try again
        </button>
      </main>
    );
  }
  if (!me) return <main className="loading">Loading…</main>;
  return (
    <MeContext.Provider value={me}>
      <AppNav organisation={me.organization.name} />
      <main>{children}</main>
    </MeContext.Provider>
  );
}
