import { useEffect, useRef, type ReactNode } from 'react';

let navigated = false;
if (typeof window !== 'undefined')
  window.addEventListener('hashchange', () => (navigated = true), { once: true });

/**
 * A view's heading. After an in-app navigation it takes focus, so keyboard and screen-reader users
 * land at the top of the new view rather than on the link they left.
 */
export function ViewTitle({ children, actions }: { children: ReactNode; actions?: ReactNode }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (navigated) ref.current?.focus({ preventScroll: true });
  }, []);
  return (
    <header className="view-header">
      <h1 ref={ref} tabIndex={-1}>
        {children}
      </h1>
      {actions ? <div className="actions">{actions}</div> : null}
    </header>
  );
}
