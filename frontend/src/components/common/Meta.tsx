import type { ReactNode } from "react";

/**
 * One fact in a `dl` of facts (a run's, a bisection's, a repository's): its name and value;
 * `wide` takes a line of its own. The value's own class, title, accessible name and test id
 * are the `dd`'s.
 */
export function MetaItem({
  term,
  wide = false,
  className,
  title,
  label,
  testId,
  children,
}: {
  term: string;
  wide?: boolean;
  className?: string;
  title?: string;
  label?: string;
  testId?: string;
  children: ReactNode;
}) {
  return (
    <div className={wide ? "meta-wide" : undefined}>
      <dt>{term}</dt>
      <dd className={className} title={title} aria-label={label} data-testid={testId}>
        {children}
      </dd>
    </div>
  );
}
