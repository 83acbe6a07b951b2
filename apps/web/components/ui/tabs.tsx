"use client";

import { useRef, type KeyboardEvent, type ReactNode } from "react";

export interface Tab {
  id: string;
  label: string;
}

interface TabsProps {
  /** Names the tab list for screen readers. */
  label: string;
  idPrefix: string;
  tabs: readonly Tab[];
  selected: string;
  onSelect: (id: string) => void;
  children: ReactNode;
}

/** ARIA tabs: one tab stop, arrow keys (and Home/End) move between tabs, the panel follows the selection. */
export function Tabs({ label, idPrefix, tabs, selected, onSelect, children }: TabsProps) {
  const listRef = useRef<HTMLDivElement>(null);

  function onKeyDown(event: KeyboardEvent<HTMLDivElement>) {
    const focused = tabs.findIndex((tab) => `${idPrefix}-tab-${tab.id}` === (event.target as HTMLElement).id);
    const index = focused >= 0 ? focused : tabs.findIndex((tab) => tab.id === selected);
    const moves: Record<string, number> = {
      ArrowRight: index + 1,
      ArrowLeft: index - 1,
      Home: 0,
      End: tabs.length - 1,
    };
    const target = moves[event.key];
    if (target === undefined) return;
    event.preventDefault();
    const next = tabs[(target + tabs.length) % tabs.length]!;
    onSelect(next.id);
    listRef.current?.querySelector<HTMLButtonElement>(`#${idPrefix}-tab-${next.id}`)?.focus();
  }

  return (
    <div className="tabs">
      <div role="tablist" aria-label={label} className="tab-list" ref={listRef} onKeyDown={onKeyDown}>
        {tabs.map((tab) => (
          <button
            key={tab.id}
            id={`${idPrefix}-tab-${tab.id}`}
            type="button"
            role="tab"
            className="tab"
            aria-selected={tab.id === selected}
            aria-controls={`${idPrefix}-panel`}
            tabIndex={tab.id === selected ? 0 : -1}
            onClick={() => onSelect(tab.id)}
          >
            {tab.label}
          </button>
        ))}
      </div>
      <div
        role="tabpanel"
        id={`${idPrefix}-panel`}
        aria-labelledby={`${idPrefix}-tab-${selected}`}
        className="tab-panel"
      >
        {children}
      </div>
    </div>
  );
}
