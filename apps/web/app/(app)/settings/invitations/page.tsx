import type { Metadata } from "next";
import { InvitationSettings } from "../../../../components/settings/invitation-settings";

export const metadata: Metadata = { title: "Invitations" };

export default function InvitationsPage() {
  return <InvitationSettings />;
}
