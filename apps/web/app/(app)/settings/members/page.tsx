import type { Metadata } from "next";
import { MembersView } from "../../../../components/settings/members-view";
import { SettingsSessions } from "../../../../components/settings/settings-sessions";

export const metadata: Metadata = { title: "Members" };

export default function MembersPage() {
  return (
    <>
      <MembersView />
      <SettingsSessions />
    </>
  );
}
