import type { Metadata } from "next";
import { SecretSettings } from "../../../../components/secret-settings";

export const metadata: Metadata = { title: "Secrets" };

export default function SecretsPage() {
  return <SecretSettings />;
}
