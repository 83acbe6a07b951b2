import type { Metadata } from "next";
import { TokenSettings } from "../../../../components/token-settings";

export const metadata: Metadata = { title: "API tokens" };

export default function TokensPage() {
  return <TokenSettings />;
}
