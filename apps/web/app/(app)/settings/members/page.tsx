import type { Metadata } from "next";
import { MembersView } from "../../../../components/members-view";
import { SettingsSessions } from "../../../../components/settings-sessions";

export const metadata: Metadata = { title: "Members" };

export default function MembersPage() {
  return (
    <>
      <MembersView />
      <SettingsSessions />
    </>
  );
}
