import type { ReactNode } from "react";

/** A page: its heading, what stands beside it (a state, actions), then its content. */
export function Page({
  title,
  aside,
  children,
}: {
  title: ReactNode;
  aside?: ReactNode;
  children: ReactNode;
}) {
  return (
    <section>
      <header className="page-header">
        <h1>{title}</h1>
        {aside}
      </header>
      {children}
    </section>
  );
}
