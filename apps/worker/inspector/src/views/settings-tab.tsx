/**
 * @module views/settings-tab
 * The session's settings, editable: a save sends only the fields that
 * changed (`PATCH /v1/sessions/{id}`; an emptied field restores the default),
 * and the API's own validation errors show next to the field they name.
 * Values are sent as typed (a number when they read as one), so the rules
 * are the API's, never a second copy of them here.
 */

import { CondenseApiError, type SettingsPatchBody } from "@condense/client";
import { useState } from "preact/hooks";
import type { SessionSettings, SessionStatus } from "../api/types.ts";
import { useApi } from "../components/api-context.ts";
import { ErrorNote } from "../components/error-note.tsx";
import { formatTokens } from "../format.ts";
import { fieldErrors } from "../model/field-errors.ts";
import { DEFAULT_THRESHOLD } from "../model/limits.ts";
import type { TabProps } from "./tab-props.ts";

type Name = keyof SessionSettings;
type Kind = "text" | "number" | "select" | "textarea" | "json";

interface Field {
  name: Name;
  label: string;
  kind: Kind;
  options?: readonly string[];
  help: (status: SessionStatus) => string;
}

const FIELDS: readonly Field[] = [
  {
    name: "model",
    label: "Model",
    kind: "text",
    help: (s) => `Counts tokens and picks the window; in use: ${s.model}.`,
  },
  {
    name: "contextWindow",
    label: "Context window",
    kind: "number",
    help: (s) =>
      `Tokens a request may carry: a number or e.g. 128k; in use: ${formatTokens(s.contextWindow)}.`,
  },
  {
    name: "threshold",
    label: "Threshold",
    kind: "number",
    help: () =>
      `Share of the window that triggers a compaction, in (0, 1]; default ${DEFAULT_THRESHOLD}.`,
  },
  {
    name: "reserveTokens",
    label: "Reserve tokens",
    kind: "number",
    help: (s) =>
      `Kept free after a compaction; in use: ${formatTokens(s.contextWindow - s.budget)}.`,
  },
  {
    name: "tailTokens",
    label: "Tail tokens",
    kind: "number",
    help: () => "Token budget of the verbatim tail.",
  },
  {
    name: "identifierPolicy",
    label: "Identifier policy",
    kind: "select",
    options: ["", "strict", "custom", "off"],
    help: () => "How summaries keep identifiers; empty: the default (strict).",
  },
  {
    name: "identifierInstructions",
    label: "Identifier instructions",
    kind: "textarea",
    help: () => "With the custom policy: what the summarizer must keep.",
  },
  {
    name: "summarizerModel",
    label: "Summarizer model",
    kind: "text",
    help: () => "Overrides SUMMARIZER_MODEL.",
  },
  {
    name: "strategy",
    label: "Strategy",
    kind: "select",
    options: ["local", "openai"],
    help: () => "local: Condense's tiers; openai: OpenAI's /responses/compact when configured.",
  },
  {
    name: "pinned",
    label: "Pinned messages",
    kind: "json",
    help: () =>
      "A JSON array of Chat Completions messages re-injected into every context; empty: none.",
  },
];

type Values = Record<Name, string>;

function formValues(settings: SessionSettings): Values {
  const values = {} as Values;
  for (const field of FIELDS) {
    const value = settings[field.name];
    values[field.name] =
      field.name === "pinned"
        ? settings.pinned.length === 0
          ? ""
          : JSON.stringify(settings.pinned, null, 2)
        : value === null || value === undefined
          ? ""
          : String(value);
  }
  return values;
}

/** What a field sends: null for empty (the default), a number when it reads as one, else the text. */
function wireValue(field: Field, text: string): unknown {
  const trimmed = text.trim();
  if (trimmed === "") return null;
  if (field.kind === "number" && /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(trimmed))
    return Number(trimmed);
  if (field.kind === "json") {
    try {
      return JSON.parse(trimmed) as unknown;
    } catch {
      return trimmed;
    }
  }
  return field.kind === "textarea" ? text : trimmed;
}

interface FormProps extends TabProps {
  saved: string | null;
  setSaved: (message: string | null) => void;
}

function Form({ route, status, reloadStatus, saved, setSaved }: FormProps) {
  const api = useApi();
  const initial = formValues(status.settings);
  const [values, setValues] = useState<Values>(initial);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState<unknown>(null);
  const [saving, setSaving] = useState(false);

  const save = async (event: Event) => {
    event.preventDefault();
    const patch: Record<string, unknown> = {};
    for (const field of FIELDS) {
      if (values[field.name] !== initial[field.name])
        patch[field.name] = wireValue(field, values[field.name]);
    }
    setErrors({});
    setGeneral(null);
    setSaved(null);
    if (Object.keys(patch).length === 0) {
      setSaved("Nothing changed.");
      return;
    }
    setSaving(true);
    try {
      // The form's values, checked by the service: its 400 names the field that was wrong.
      await api.session(route.id).update(patch as SettingsPatchBody);
      setSaved(`Saved: ${Object.keys(patch).join(", ")}.`);
      reloadStatus();
    } catch (error) {
      if (CondenseApiError.isInstance(error) && error.status === 400) {
        const located = fieldErrors(
          error,
          FIELDS.map((f) => f.name),
          "pinned",
        );
        setErrors(located.byField);
        if (located.general !== null) setGeneral(error);
      } else {
        setGeneral(error);
      }
    } finally {
      setSaving(false);
    }
  };

  return (
    <form class="settings" onSubmit={save} noValidate>
      {FIELDS.map((field) => {
        const id = `setting-${field.name}`;
        const error = errors[field.name];
        const describedBy = error === undefined ? `${id}-help` : `${id}-error ${id}-help`;
        const common = {
          id,
          name: field.name,
          value: values[field.name],
          "aria-invalid": error === undefined ? undefined : true,
          "aria-describedby": describedBy,
          onInput: (e: Event) => {
            const target = e.currentTarget as
              | HTMLInputElement
              | HTMLTextAreaElement
              | HTMLSelectElement;
            setValues({ ...values, [field.name]: target.value });
          },
        };
        return (
          <div
            key={field.name}
            class={`field${error === undefined ? "" : " invalid"}`}
            data-field={field.name}
          >
            <label for={id}>{field.label}</label>
            {field.kind === "select" ? (
              <select {...common} onChange={common.onInput}>
                {(field.options ?? []).map((option) => (
                  <option key={option} value={option}>
                    {option === "" ? "default" : option}
                  </option>
                ))}
              </select>
            ) : field.kind === "textarea" || field.kind === "json" ? (
              <textarea {...common} rows={field.kind === "json" ? 6 : 3} spellcheck={false} />
            ) : (
              <input
                {...common}
                type="text"
                autocomplete="off"
                spellcheck={false}
                inputMode={field.kind === "number" ? "decimal" : undefined}
              />
            )}
            {error === undefined ? null : (
              <p id={`${id}-error`} class="field-error" role="alert">
                {error}
              </p>
            )}
            <p id={`${id}-help`} class="help muted">
              {field.help(status)}
            </p>
          </div>
        );
      })}
      <div class="actions">
        <button type="submit" disabled={saving}>
          {saving ? "Saving…" : "Save settings"}
        </button>
        <button
          type="button"
          class="secondary"
          onClick={() => {
            setValues(initial);
            setErrors({});
            setGeneral(null);
            setSaved(null);
          }}
        >
          Undo changes
        </button>
        {saved === null ? null : (
          <p class="note saved" role="status">
            {saved}
          </p>
        )}
      </div>
      {general === null ? null : <ErrorNote error={general} what="Saving the settings" />}
    </form>
  );
}

export function SettingsTab(props: TabProps) {
  // The confirmation outlives the form, which starts afresh from the stored settings after a save.
  const [saved, setSaved] = useState<string | null>(null);
  return (
    <Form
      key={JSON.stringify(props.status.settings)}
      {...props}
      saved={saved}
      setSaved={setSaved}
    />
  );
}
