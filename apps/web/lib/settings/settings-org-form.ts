// The organisation settings form: allow-list text ⇄ rules, caps as text, and the server's
// field errors (paths like "targetAllowList.2") put back on the line the user typed.
import type { FieldError } from "@throng/protocol/errors";
import type { OrgSettings } from "@throng/protocol/orgs";

export interface OrgSettingsDraft {
  allowList: string;
  maxClients: string;
  maxDurationSec: string;
}

export type OrgSettingsField = keyof OrgSettingsDraft;
export type OrgSettingsErrors = Partial<Record<OrgSettingsField, string>>;

export function draftFromSettings(settings: OrgSettings): OrgSettingsDraft {
  return {
    allowList: settings.targetAllowList.join("\n"),
    maxClients: String(settings.maxClients),
    maxDurationSec: String(settings.maxDurationSec),
  };
}

/** Non-blank lines become rules; `lines[i]` is the 1-based line of rule i, for error messages. */
export function parseAllowList(text: string): { rules: string[]; lines: number[] } {
  const rules: string[] = [];
  const lines: number[] = [];
  text.split(/\r?\n/).forEach((line, index) => {
    const rule = line.trim();
    if (!rule) return;
    rules.push(rule);
    lines.push(index + 1);
  });
  return { rules, lines };
}

const WHOLE = /^\d+$/;

/**
 * The body for PUT /api/org/settings, or the fields that are not even numbers. Rules are not
 * checked here: the server's TargetRule is the one judge, and its answer comes back as fields.
 */
export function settingsFromDraft(
  draft: OrgSettingsDraft,
): { ok: true; settings: OrgSettings } | { ok: false; errors: OrgSettingsErrors } {
  const errors: OrgSettingsErrors = {};
  const clients = draft.maxClients.trim().replace(/[,_\s]/g, "");
  const duration = draft.maxDurationSec.trim().replace(/[,_\s]/g, "");
  if (!WHOLE.test(clients)) errors.maxClients = "Enter a whole number of clients, e.g. 10000.";
  if (!WHOLE.test(duration)) errors.maxDurationSec = "Enter a whole number of seconds, e.g. 3600.";
  if (errors.maxClients || errors.maxDurationSec) return { ok: false, errors };
  return {
    ok: true,
    settings: {
      targetAllowList: parseAllowList(draft.allowList).rules,
      maxClients: Number(clients),
      maxDurationSec: Number(duration),
    },
  };
}

/** Maps the server's field errors onto the form, naming the allow-list line a rule came from. */
export function errorsFromServer(fields: FieldError[], allowListText: string): OrgSettingsErrors {
  const { rules, lines } = parseAllowList(allowListText);
  const errors: OrgSettingsErrors = {};
  const ruleErrors: string[] = [];
  for (const { path, message } of fields) {
    const [head, index] = path.split(".");
    if (head === "targetAllowList") {
      const i = Number(index);
      const rule = Number.isInteger(i) ? rules[i] : undefined;
      ruleErrors.push(rule === undefined ? message : `Line ${lines[i]} (${rule}): ${message}`);
    } else if (head === "maxClients" || head === "maxDurationSec") {
      errors[head] ??= message;
    }
  }
  if (ruleErrors.length) errors.allowList = ruleErrors.join("\n");
  return errors;
}
