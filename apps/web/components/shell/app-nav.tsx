"use client";

import Link from "next/link";
import { usePathname, useRouter } from "next/navigation";
import { useState } from "react";
import { authClient } from "../../lib/auth/auth-client";
import { OrgSwitcher } from "./org-switcher";

const LINKS = [
  { href: "/", label: "Home" },
  { href: "/agents", label: "Agents" },
  { href: "/plans", label: "Plans" },
  { href: "/scripts", label: "Scripts" },
  { href: "/schedules", label: "Schedules" },
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
  // On a phone the links fold behind a Menu button (CSS decides when); a link followed folds them again, in the
  // render that shows the new path (React's way to reset state when a value changes, without an effect).
  const [open, setOpen] = useState(false);
  const [shownPath, setShownPath] = useState(pathname);
  if (shownPath !== pathname) {
    setShownPath(pathname);
    setOpen(false);
  }

  async function signOut() {
    setSigningOut(true);
    try {
      await authClient().signOut();
    } finally {
      router.replace("/sign-in");
    }
  }

  return (
    <nav className={`app-nav${open ? " open" : ""}`} aria-label="Main">
      <Link className="brand" href="/">
        Throng
      </Link>
      <button
        className="button small menu-button"
        type="button"
        aria-expanded={open}
        aria-controls="main-links"
        onClick={() => setOpen((shown) => !shown)}
        data-testid="nav-menu"
      >
        Menu
      </button>
      <ul id="main-links">
        {LINKS.map((link) => (
          <li key={link.href}>
            <Link
              href={link.href}
              aria-current={
                (link.href === "/" ? pathname === "/" : pathname.startsWith(link.href)) ? "page" : undefined
              }
            >
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
