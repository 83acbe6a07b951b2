"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import type { ComponentType } from "react";
import type { Action } from "@throng/protocol/orgs";
import { can, rolesWhoCan } from "../../lib/shared/settings-permissions";
import { useMe } from "../shell/session-gate";

const SECTIONS: { href: string; label: string; needs: Action }[] = [
  { href: "/settings/members", label: "Members", needs: "org.read" },
  { href: "/settings/invitations", label: "Invitations", needs: "member.manage" },
  { href: "/settings/tokens", label: "API tokens", needs: "token.manage" },
  { href: "/settings/secrets", label: "Secrets", needs: "secret.manage" },
  { href: "/settings/notifications", label: "Notifications", needs: "settings.read" },
  { href: "/settings/metrics-export", label: "Metrics export", needs: "settings.read" },
  { href: "/settings/sso", label: "Single sign-on", needs: "settings.read" },
  { href: "/settings/audit", label: "Audit log", needs: "audit.read" },
  { href: "/settings/organisation", label: "Organisation", needs: "settings.read" },
];

/** The settings sections the user's role may open; the others are left out rather than refused. */
export function SettingsNav() {
  const pathname = usePathname();
  const { role } = useMe();
  return (
    <nav aria-label="Settings">
      <ul className="settings-tabs">
        {SECTIONS.filter((section) => can(role, section.needs)).map((section) => (
          <li key={section.href}>
            <Link href={section.href} aria-current={pathname.startsWith(section.href) ? "page" : undefined}>
              {section.label}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** Shown instead of a section the role may not use, when it is opened by its address: what it is and who may. */
function NotForYourRole({ what, needs }: { what: string; needs: Action }) {
  const { role } = useMe();
  return (
    <div className="empty" data-testid="not-for-role">
      <strong>
        {what} is for {rolesWhoCan(needs)}.
      </strong>
      Your role here is {role ?? "viewer"}; ask an admin or owner of the organisation if you need it.
    </div>
  );
}

/** A settings section only some roles may use: `Section` for a role that may take `needs`, NotForYourRole for the others. */
export function forRole(needs: Action, what: string, Section: ComponentType): ComponentType {
  return function ForRole() {
    const { role } = useMe();
    return can(role, needs) ? <Section /> : <NotForYourRole what={what} needs={needs} />;
  };
}
