/**
 * @module charts/use-width
 * The pixel width of an element, kept current as it resizes, so a chart is
 * drawn at the size it is shown (text stays readable on a phone).
 */

import type { RefObject } from "preact";
import { useEffect, useState } from "preact/hooks";

export function useWidth(ref: RefObject<HTMLElement | null>, fallback = 800): number {
  const [width, setWidth] = useState(fallback);
  useEffect(() => {
    const element = ref.current;
    if (element === null) return;
    setWidth(element.clientWidth || fallback);
    const observer = new ResizeObserver((entries) => {
      const entry = entries[0];
      if (entry !== undefined) setWidth(Math.max(240, Math.floor(entry.contentRect.width)));
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, [ref, fallback]);
  return width;
}
