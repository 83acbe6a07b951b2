import type { ReactNode } from "react";
import { ErrorAlert } from "../ui/error-alert";

/**
 * A settings page's list under its heading: why it could not be read, or "Loading …" until it is, then `children`
 * draw what was read (the secrets, the tokens).
 */
export function SettingsListSection<T>({
  id,
  title,
  list,
  loading,
  children,
}: {
  /** Names the heading (`${id}-title`) the section is labelled by. */
  id: string;
  title: string;
  list: { data: T | null | undefined; error: string | null };
  loading: string;
  children: (data: T) => ReactNode;
}) {
  return (
    <section className="settings-section" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{title}</h2>
      <ErrorAlert error={list.error} />
      {list.data ? children(list.data) : !list.error && <p className="loading">{loading}</p>}
    </section>
  );
}
