/**
 * @module components/use-load
 * Loads something when a view mounts (or its inputs change) and tracks it as
 * loading, loaded or failed; an answer that arrives after the view moved on
 * is dropped, so a slow reply never overwrites a newer one. A reload keeps
 * showing what was loaded until the new answer arrives.
 */

import { useCallback, useEffect, useRef, useState } from "preact/hooks";

export type Loaded<T> =
  | { state: "loading" }
  | { state: "ok"; value: T }
  | { state: "error"; error: unknown };

export function useLoad<T>(
  load: () => Promise<T>,
  inputs: readonly unknown[],
): [Loaded<T>, () => void] {
  const [result, setResult] = useState<Loaded<T>>({ state: "loading" });
  const [round, setRound] = useState(0);
  const latest = useRef(0);
  const lastInputs = useRef<readonly unknown[] | null>(null);
  useEffect(() => {
    const ticket = ++latest.current;
    const previous = lastInputs.current;
    const changed =
      previous === null ||
      previous.length !== inputs.length ||
      previous.some((v, i) => v !== inputs[i]);
    lastInputs.current = inputs;
    if (changed) setResult({ state: "loading" });
    load().then(
      (value) => {
        if (ticket === latest.current) setResult({ state: "ok", value });
      },
      (error: unknown) => {
        if (ticket === latest.current) setResult({ state: "error", error });
      },
    );
  }, [...inputs, round]);
  const reload = useCallback(() => setRound((n) => n + 1), []);
  return [result, reload];
}
