import type { Metadata } from "next";
import { SsoSettings } from "../../../../components/sso-settings";

export const metadata: Metadata = { title: "Single sign-on" };

export default function SsoPage() {
  return <SsoSettings />;
}
