"use client";

import type { Extension } from "@codemirror/state";
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
  /** The language and its helpers, loaded with the editor; JavaScript when not given. */
  language?: () => Promise<Extension>;
}

const javascriptLanguage = async (): Promise<Extension> => (await import("@codemirror/lang-javascript")).javascript();

/** The CSP nonce of this page (proxy.ts), read from a script Next rendered with it; "" without one. */
function pageNonce(): string {
  return document.querySelector<HTMLScriptElement>("script[nonce]")?.nonce ?? "";
}

/**
 * Code in CodeMirror 6 with highlighting, line numbers and the usual editing keys. CodeMirror loads on demand (its
 * chunk only on pages that show code); until then, and if it fails to load, a plain textarea stands in.
 */
export function CodeEditor({
  id,
  label,
  value,
  onChange,
  testId,
  describedBy,
  language = javascriptLanguage,
}: CodeEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const viewRef = useRef<import("codemirror").EditorView | undefined>(undefined);
  const [loaded, setLoaded] = useState(false);
  // The editor is built once; later changes reach it through these refs, not by rebuilding it.
  const onChangeRef = useRef(onChange);
  const valueRef = useRef(value);
  useEffect(() => {
    onChangeRef.current = onChange;
    valueRef.current = value;
  });
  const readOnly = onChange === undefined;
  const languageRef = useRef(language);

  // Text replaced from outside (an imported file) reaches the editor, also when it came while CodeMirror loaded; its
  // own edits come back equal and are left alone.
  useEffect(() => {
    const view = loaded ? viewRef.current : undefined;
    if (view && view.state.doc.toString() !== value)
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: value } });
  }, [value, loaded]);

  useEffect(() => {
    let view: import("codemirror").EditorView | undefined;
    let cancelled = false;
    void Promise.all([import("codemirror"), languageRef.current()]).then(
      ([{ EditorView, basicSetup }, languageSupport]) => {
        if (cancelled || !host.current) return;
        view = new EditorView({
          doc: valueRef.current,
          parent: host.current,
          extensions: [
            // CodeMirror writes its styles into a <style> tag: the page's CSP lets it in by the nonce Next's scripts carry.
            EditorView.cspNonce.of(pageNonce()),
            basicSetup,
            languageSupport,
            EditorView.lineWrapping,
            EditorView.contentAttributes.of({
              "aria-label": label,
              ...(describedBy ? { "aria-describedby": describedBy } : {}),
              "data-testid": `${testId}-content`,
            }),
            ...(readOnly
              ? [EditorView.editable.of(false)]
              : [
                  EditorView.updateListener.of(
                    (update) => update.docChanged && onChangeRef.current?.(update.state.doc.toString()),
                  ),
                ]),
          ],
        });
        viewRef.current = view;
        setLoaded(true);
      },
      () => {
        // The chunk did not load (offline, a blocked request): the textarea stays, which edits the same text.
      },
    );
    return () => {
      cancelled = true;
      view?.destroy();
      viewRef.current = undefined;
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
