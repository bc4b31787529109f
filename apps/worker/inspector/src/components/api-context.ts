/**
 * @module components/api-context
 * The signed-in API client (`@condense/client`'s `Condense`), handed to every
 * view below the sign-in gate.
 */

import type { Condense } from "@condense/client";
import { createContext } from "preact";
import { useContext } from "preact/hooks";

export const ApiContext = createContext<Condense | null>(null);

export function useApi(): Condense {
  const api = useContext(ApiContext);
  if (api === null) throw new Error("useApi outside the signed-in app");
  return api;
}
