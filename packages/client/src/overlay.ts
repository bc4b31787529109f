/**
 * @module overlay
 * How the integrations wrap an SDK client without copying it: a Proxy in which
 * a few properties are replaced and everything else is the client itself.
 */

/**
 * A view of `target` in which `overrides` replace some properties; every other method is
 * called on `target` itself (so private fields and `this` keep working).
 */
export function overlay<T extends object>(target: T, overrides: Record<string, unknown>): T {
  return new Proxy(target, {
    get(object, property) {
      if (typeof property === "string" && Object.hasOwn(overrides, property))
        return overrides[property];
      const value: unknown = Reflect.get(object, property, object);
      return typeof value === "function" ? value.bind(object) : value;
    },
  });
}
