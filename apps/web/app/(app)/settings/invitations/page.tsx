import type { Metadata } from "next";
import { InvitationSettings } from "../../../../components/invitation-settings";

export const metadata: Metadata = { title: "Invitations" };

export default function InvitationsPage() {
  return <InvitationSettings />;
}
