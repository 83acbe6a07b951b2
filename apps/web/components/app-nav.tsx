"use client";

import Link from "next/link";
import { usePathname, useRouter } from "next/navigation";
import { useState } from "react";
import { authClient } from "../lib/auth-client";
import { OrgSwitcher } from "./org-switcher";

const LINKS = [
  { href: "/", label: "Home" },
  { href: "/agents", label: "Agents" },
  { href: "/plans", label: "Plans" },
  { href: "/scripts", label: "Scripts" },
  { href: "/runs", label: "Runs" },
  { href: "/compare", label: "Compare" },
  { href: "/targets", label: "Targets" },
  { href: "/calculator", label: "Calculator" },
  { href: "/settings", label: "Settings" },
] as const;

export function AppNav({ organisation }: { organisation: string }) {
  const pathname = usePathname();
  const router = useRouter();
  const [signingOut, setSigningOut] = useState(false);

  async function signOut() {
    setSigningOut(true);
    try {
      await authClient().signOut();
    } finally {
      router.replace("/sign-in");
    }
  }

  return (
    <nav className="app-nav" aria-label="Main">
      <Link className="brand" href="/">
        Throng
      </Link>
      <ul>
        {LINKS.map((link) => (
          <li key={link.href}>
            <Link href={link.href} aria-current={(link.href === "/" ? pathname === "/" : pathname.startsWith(link.href)) ? "page" : undefined}>
              {link.label}
            </Link>
          </li>
        ))}
      </ul>
      <OrgSwitcher organisation={organisation} />
      <button className="button small" type="button" onClick={signOut} disabled={signingOut}>
        Sign out
      </button>
    </nav>
  );
}
