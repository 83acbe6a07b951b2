import { redirect } from "next/navigation";

// Members is the one section every role may open.
export default function SettingsPage() {
  redirect("/settings/members");
}
