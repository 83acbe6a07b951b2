"use client";

import { useEffect, useRef, useState } from "react";

interface CodeEditorProps {
  id: string;
  /** Names the code for screen readers ("Script source"). */
  label: string;
  value: string;
  /** Without it the code is shown read-only (a stored script: its hash is of these bytes). */
  onChange?: (value: string) => void;
  testId: string;
  describedBy?: string;
}

/** The CSP nonce of this page (proxy.ts), read from a script Next rendered with it; "" without one. */
function pageNonce(): string {
  return document.querySelector<HTMLScriptElement>("script[nonce]")?.nonce ?? "";
}

/**
 * JavaScript in CodeMirror 6 with highlighting, line numbers and the usual editing keys. CodeMirror loads on
 * demand (its chunk only on script pages); until then, and if it fails to load, a plain textarea stands in.
 */
export function CodeEditor({ id, label, value, onChange, testId, describedBy }: CodeEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const [loaded, setLoaded] = useState(false);
  // The editor is built once; later changes reach it through these refs, not by rebuilding it.
  const onChangeRef = useRef(onChange);
  const valueRef = useRef(value);
  useEffect(() => {
    onChangeRef.current = onChange;
    valueRef.current = value;
  });
  const readOnly = onChange === undefined;

  useEffect(() => {
    let view: import("codemirror").EditorView | undefined;
    let cancelled = false;
    void Promise.all([import("codemirror"), import("@codemirror/lang-javascript")]).then(
      ([{ EditorView, basicSetup }, { javascript }]) => {
        if (cancelled || !host.current) return;
        view = new EditorView({
          doc: valueRef.current,
          parent: host.current,
          extensions: [
            // CodeMirror writes its styles into a <style> tag: the page's CSP lets it in by the nonce Next's scripts carry.
            EditorView.cspNonce.of(pageNonce()),
            basicSetup,
            javascript(),
            EditorView.lineWrapping,
            EditorView.contentAttributes.of({ "aria-label": label, ...(describedBy ? { "aria-describedby": describedBy } : {}), "data-testid": `${testId}-content` }),
            ...(readOnly
              ? [EditorView.editable.of(false)]
              : [EditorView.updateListener.of((update) => update.docChanged && onChangeRef.current?.(update.state.doc.toString()))]),
          ],
        });
        setLoaded(true);
      },
      () => {
        // The chunk did not load (offline, a blocked request): the textarea stays, which edits the same text.
      },
    );
    return () => {
      cancelled = true;
      view?.destroy();
    };
  }, [label, describedBy, readOnly, testId]);

  return (
    <div className="code-editor" data-testid={testId} data-editor={loaded ? "codemirror" : "textarea"}>
      <div ref={host} hidden={!loaded} />
      {!loaded && (
        <textarea
          id={id}
          className="code"
          spellCheck={false}
          readOnly={readOnly}
          aria-label={label}
          aria-describedby={describedBy}
          rows={Math.min(30, Math.max(12, value.split("\n").length + 1))}
          value={value}
          onChange={(event) => onChange?.(event.target.value)}
        />
      )}
    </div>
  );
}
