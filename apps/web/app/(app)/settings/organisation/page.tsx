import type { Metadata } from "next";
import { OrganisationSettings } from "../../../../components/settings/settings-organisation-form";

export const metadata: Metadata = { title: "Organisation settings" };

export default function OrganisationPage() {
  return <OrganisationSettings />;
}
