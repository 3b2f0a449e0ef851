import { useLayoutEffect, useState, type RefObject } from 'react';

/**
 * The element's width in CSS pixels, kept current as the window (or a sidebar beside it) changes:
 * a layout that depends on the room it has, not on the window's width. Measured before the first
 * paint, so nothing is drawn one way and then the other.
 */
export function useWidth(ref: RefObject<HTMLElement | null>): number | undefined {
  const [width, setWidth] = useState<number | undefined>();
  useLayoutEffect(() => {
    const element = ref.current;
    if (!element) return;
    setWidth(element.getBoundingClientRect().width);
    const observer = new ResizeObserver(([entry]) => {
      if (entry) setWidth(entry.contentRect.width);
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, [ref]);
  return width;
}
