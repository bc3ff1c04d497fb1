import { useId, type ReactNode } from "react";

/**
 * Content with an explanation shown on hover and on keyboard focus (the trigger is focusable
 * and names the explanation with aria-describedby, so screen readers read it too).
 */
export function Tooltip({ tip, children }: { tip: ReactNode; children: ReactNode }) {
  const id = useId();
  return (
    <span className="tooltip" tabIndex={0} aria-describedby={id}>
      {children}
      <span role="tooltip" id={id} className="tooltip-text">
        {tip}
      </span>
    </span>
  );
}
