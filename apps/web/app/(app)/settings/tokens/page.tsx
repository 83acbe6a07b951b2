import type { Metadata } from "next";
import { TokenSettings } from "../../../../components/settings/token-settings";

export const metadata: Metadata = { title: "API tokens" };

export default function TokensPage() {
  return <TokenSettings />;
}
