/** What the API or a check refused, read out when it appears; nothing while there is no error. */
export function ErrorAlert({ error, testId }: { error: string | null | undefined; testId?: string }) {
  if (!error) return null;
  return (
    <p className="alert" role="alert" data-testid={testId}>
      {error}
    </p>
  );
}
