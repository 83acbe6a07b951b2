import type { Metadata } from "next";
import { SsoSettings } from "../../../../components/settings/sso-settings";

export const metadata: Metadata = { title: "Single sign-on" };

export default function SsoPage() {
  return <SsoSettings />;
}
