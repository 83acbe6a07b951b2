"use client";

import { CopyButton } from "../ui/copy-button";

interface SecretOnceProps {
  title: string;
  secret: string;
  /** What the Copy button copies, for screen readers: "invitation link", "API token". */
  what: string;
  warning: string;
  onDone: () => void;
  testId: string;
}

/** A secret the API returns once (invitation link, API token): shown with Copy until dismissed. */
export function SecretOnce({ title, secret, what, warning, onDone, testId }: SecretOnceProps) {
  return (
    <section className="secret-once" aria-labelledby={`${testId}-title`} data-testid={testId}>
      <h3 id={`${testId}-title`}>{title}</h3>
      <p className="warning" role="note">
        {warning}
      </p>
      <div className="command">
        <pre data-testid={`${testId}-value`}>{secret}</pre>
        <CopyButton text={secret} label={what} />
      </div>
      <button className="button small" type="button" onClick={onDone}>
        Done, hide it
      </button>
    </section>
  );
}
