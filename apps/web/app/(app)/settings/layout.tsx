import type { ReactNode } from "react";
import { SettingsNav } from "../../../components/settings/settings-nav";
import "./settings.css";

export default function SettingsLayout({ children }: { children: ReactNode }) {
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Settings</h1>
          <p>Who is in this organisation, how they get in, what they may do and what runs may target.</p>
        </div>
      </div>
      <SettingsNav />
      {children}
    </>
  );
}
