/**
 * @module bench/compare/missing-route
 * Which checkouts lack a route: a base older than a figure's request (the searches' do-nothing
 * peer, say) answers it 404, and a figure that only describes, gating nothing, is then left out
 * instead of ending the run.
 */

/** A checkout's Worker: where it listens, and how the report names it. */
export interface Served {
  base: string;
  name: string;
}

/** The names of the checkouts whose Worker answers `GET path` with 404. */
export async function checkoutsWithout(
  served: readonly Served[],
  path: string,
  key: string,
): Promise<string[]> {
  const missing: string[] = [];
  for (const { base, name } of served) {
    const response = await fetch(`${base}${path}`, { headers: { Authorization: `Bearer ${key}` } });
    await response.arrayBuffer();
    if (response.status === 404) missing.push(name);
  }
  return missing;
}
