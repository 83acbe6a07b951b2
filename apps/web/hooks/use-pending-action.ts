"use client";

import { useState } from "react";
import { errorMessage } from "../lib/shared/api-client";

/**
 * One click's call to the API outside a form's mutation: `pending` while it runs (its button disabled, its label
 * saying so), then the refusal's words as `failure` (cleared when the next one starts). `run` resolves with whether
 * the action succeeded and never throws: the failure is on the page.
 */
export function usePendingAction() {
  const [pending, setPending] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);

  async function run(action: () => Promise<unknown>): Promise<boolean> {
    setPending(true);
    setFailure(null);
    try {
      await action();
      return true;
    } catch (error) {
      setFailure(errorMessage(error));
      return false;
    } finally {
      setPending(false);
    }
  }

  return { pending, failure, run, clearFailure: () => setFailure(null) };
}
