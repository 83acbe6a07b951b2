import type { Metadata } from "next";
import { InvitationAccept } from "../../../components/auth/invitation-accept";
import "../../(app)/settings/settings.css";

export const metadata: Metadata = { title: "Invitation" };

// Outside the (app) group: a signed-out visitor must see this page, not be sent to /sign-in.
export default async function InvitePage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  return (
    <main>
      <div className="auth-card invite-card">
        <span className="brand">Throng</span>
        <InvitationAccept token={token} />
      </div>
    </main>
  );
}
