import type { Metadata } from "next";
import { SecretSettings } from "../../../../components/settings/secret-settings";

export const metadata: Metadata = { title: "Secrets" };

export default function SecretsPage() {
  return <SecretSettings />;
}
