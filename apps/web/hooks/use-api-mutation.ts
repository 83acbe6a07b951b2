"use client";

import { useMutation, useQueryClient, type QueryKey } from "@tanstack/react-query";
import { errorMessage } from "../lib/shared/api-client";
import { fieldErrorsOf } from "../lib/shared/field-errors";

const NO_FIELD_ERRORS: Record<string, string> = {};

/**
 * A change sent from a form: pending while it runs, and on success the cached reads in `invalidates` asked again
 * before the caller hears of it (so the page shows the list as it now is). A refusal that names fields comes back
 * as `fieldErrors` for the inputs; any other failure as one `failure` line. Sending again clears both.
 */
export function useApiMutation<V, T>(change: (variables: V) => Promise<T>, invalidates: readonly QueryKey[]) {
  const queryClient = useQueryClient();
  const mutation = useMutation({
    mutationFn: change,
    onSuccess: () => Promise.all(invalidates.map((queryKey) => queryClient.invalidateQueries({ queryKey }))),
  });
  const fields = mutation.isError ? fieldErrorsOf(mutation.error) : null;
  return {
    ...mutation,
    fieldErrors: fields ?? NO_FIELD_ERRORS,
    failure: mutation.isError && !fields ? errorMessage(mutation.error) : null,
  };
}
