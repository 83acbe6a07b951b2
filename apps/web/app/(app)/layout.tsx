import type { ReactNode } from "react";
import { SessionGate } from "../../components/shell/session-gate";

export default function AppLayout({ children }: { children: ReactNode }) {
  // The query cache is the root layout's, so the public share and invitation pages read through it too.
  return <SessionGate>{children}</SessionGate>;
}
