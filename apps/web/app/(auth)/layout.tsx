import type { ReactNode } from "react";

export default function AuthLayout({ children }: { children: ReactNode }) {
  return (
    <main>
      <div className="auth-card">
        <span className="brand">Throng</span>
        {children}
      </div>
    </main>
  );
}
