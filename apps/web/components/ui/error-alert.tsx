/** What the API or a check refused, read out when it appears; nothing while there is no error. */
export function ErrorAlert({ error }: { error: string | null | undefined }) {
  if (!error) return null;
  return (
    <p className="alert" role="alert">
      {error}
    </p>
  );
}
