import type { ReactNode } from "react";
import { QueryProvider } from "../../components/query-provider";
import { SessionGate } from "../../components/session-gate";

export default function AppLayout({ children }: { children: ReactNode }) {
  return (
    <QueryProvider>
      <SessionGate>{children}</SessionGate>
    </QueryProvider>
  );
}
