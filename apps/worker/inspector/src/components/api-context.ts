/**
 * @module components/api-context
 * The signed-in API client, handed to every view below the sign-in gate.
 */

import { createContext } from "preact";
import { useContext } from "preact/hooks";
import type { Api } from "../api/client.ts";

export const ApiContext = createContext<Api | null>(null);

export function useApi(): Api {
  const api = useContext(ApiContext);
  if (api === null) throw new Error("useApi outside the signed-in app");
  return api;
}
